# source: https://github.com/deepmodeling/DMFF/blob/9cb01be5ff043e27da90712b7dafe3145a8c9060/dmff/classical/inter.py
#   (DMFF, a differentiable molecular force field; the parent of commit 2c688f2 "fix: LJ bug;
#   all classical code can be jitted", which adds `map_prm = jnp.array(self.map_prm)` to
#   LennardJonesForce's get_energy and indexes that instead of the NumPy `self.map_prm`)
# observed on jax 0.10.2 CPU: jax.jit of the Lennard-Jones energy raises
#   TracerArrayConversionError at `prm_pair0 = self.map_prm[pairs[:, 0]]`: map_prm is the
#   NumPy integer array dmff/api.py builds (`map_lj`), indexed by the traced pairs. With
#   map_prm given as a jnp array (the commit's fix), the cutoff branch then raises
#   NonConcreteBooleanIndexError at `sig = sig[dr_norm <= self.r_cut]`: a traced mask. The
#   fix left that branch as it is. Kept verbatim: the LennardJonesForce class at the parent
#   commit, `pbc_shift`/`v_pbc_shift` from dmff/admp/spatial.py (without its jit_condition
#   decorator). Added: the imports; the arguments as NonbondJaxGenerator.createForce in
#   dmff/api.py builds them for a CutoffPeriodic system (map_lj a NumPy int array, an empty
#   (0, 2) NumPy map_nbfix, a jnp covalent map, r_switch = r_cut, no switch), a stand-in
#   system of four atoms of two LJ types in a 3 nm box with six pairs, and the `__main__`
#   block that jits the energy as DMFF's users do.
# gap: types
import numpy as np
import jax
import jax.numpy as jnp
from jax import vmap


# --- dmff/admp/spatial.py ----------------------------------------------------------------
def pbc_shift(drvecs, box, box_inv):
    '''
    Dealing with the pbc shifts of vectors

    Inputs:
        rvecs:
            N * 3, a list of real space vectors in Cartesian
        box:
            3 * 3, box matrix, with axes arranged in rows
        box_inv:
            3 * 3, inverse of box matrix

    Outputs:
        rvecs:
            N * 3, vectors that have been shifted, in Cartesian
    '''
    unshifted_dsvecs = drvecs.dot(box_inv)
    dsvecs = unshifted_dsvecs - jnp.floor(unshifted_dsvecs + 0.5)
    return dsvecs.dot(box)
   
v_pbc_shift = vmap(pbc_shift, in_axes=(0, None, None), out_axes=0)


# --- dmff/classical/inter.py -------------------------------------------------------------
class LennardJonesForce:
    def __init__(
        self,
        r_switch,
        r_cut,
        map_prm,
        map_nbfix,
        colvmap,
        isSwitch=False,
        isPBC=True,
        isNoCut=False,
    ) -> None:
        self.isSwitch = isSwitch
        self.r_switch = r_switch
        self.r_cut = r_cut

        self.map_prm = map_prm
        self.map_nbfix = map_nbfix
        self.ifPBC = isPBC
        self.ifNoCut = isNoCut
        self.colvmap = colvmap

    def generate_get_energy(self):
        def get_LJ_energy(dr_vec, sig, eps, box):
            if self.ifPBC:
                dr_vec = v_pbc_shift(dr_vec, box, jnp.linalg.inv(box))
            dr_norm = jnp.linalg.norm(dr_vec, axis=1)
            if not self.ifNoCut:
                sig = sig[dr_norm <= self.r_cut]  # expect: JIT403
                eps = eps[dr_norm <= self.r_cut]  # expect: JIT403
                dr_norm = dr_norm[dr_norm <= self.r_cut]  # expect: JIT403

            dr_inv = 1.0 / dr_norm
            sig_dr = sig * dr_inv
            sig_dr6 = jnp.power(sig_dr, 6)
            sig_dr12 = jnp.power(sig_dr6, 2)
            E = 4.0 * eps * (sig_dr12 - sig_dr6)

            if self.isSwitch:

                x = (dr_norm - self.r_switch) / (self.r_cut - self.r_switch)
                S = 1 - 6. * x ** 5 + 15. * x ** 4 - 10. * x ** 3
                jnp.where(dr_norm > self.r_switch, E, E * S)

            return E

        def get_energy(positions, box, pairs, epsilon, sigma, epsfix, sigfix, mscales):

            eps_m1 = jnp.repeat(epsilon.reshape((-1, 1)), epsilon.shape[0], axis=1)
            eps_m2 = eps_m1.T
            eps_mat = jnp.sqrt(eps_m1 * eps_m2)
            sig_m1 = jnp.repeat(sigma.reshape((-1, 1)), sigma.shape[0], axis=1)
            sig_m2 = sig_m1.T
            sig_mat = (sig_m1 + sig_m2) * 0.5

            eps_mat = eps_mat.at[self.map_nbfix[:, 0], self.map_nbfix[:, 1]].set(epsfix)
            eps_mat = eps_mat.at[self.map_nbfix[:, 1], self.map_nbfix[:, 0]].set(epsfix)
            sig_mat = sig_mat.at[self.map_nbfix[:, 0], self.map_nbfix[:, 1]].set(sigfix)
            sig_mat = sig_mat.at[self.map_nbfix[:, 1], self.map_nbfix[:, 0]].set(sigfix)

            colv_pair = self.colvmap[pairs[:,0],pairs[:,1]]
            mscale_pair = mscales[colv_pair-1] # in mscale vector, the 0th item is 1-2 scale, the 1st item is 1-3 scale, etc...
            

            dr_vec = positions[pairs[:, 0]] - positions[pairs[:, 1]]
            prm_pair0 = self.map_prm[pairs[:, 0]]  # expect: JIT402
            prm_pair1 = self.map_prm[pairs[:, 1]]  # expect: JIT402
            eps = eps_mat[prm_pair0, prm_pair1]
            sig = sig_mat[prm_pair0, prm_pair1]

            eps_scale = eps * mscale_pair

            E_inter = get_LJ_energy(dr_vec, sig, eps_scale, box)

            return jnp.sum(E_inter)

        return get_energy


if __name__ == "__main__":
    import traceback

    def raising_line(fn, *args):
        try:
            fn(*args)
        except Exception as e:
            frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
            return type(e).__name__, frames[-1].lineno
        raise AssertionError("expected an error")

    # as NonbondJaxGenerator.createForce builds them (CutoffPeriodic, no switch)
    map_lj = np.array([0, 1, 1, 0], dtype=int)
    map_nbfix = np.array([], dtype=int).reshape((-1, 2))
    colv_map = jnp.array([[0, 1, 2, 3], [1, 0, 1, 2], [2, 1, 0, 1], [3, 2, 1, 0]])
    r_cut = 1.0
    positions = jnp.array([[0.1, 0.1, 0.1], [0.45, 0.1, 0.1], [0.1, 0.5, 0.1], [2.9, 2.9, 2.9]])
    box = jnp.eye(3) * 3.0
    pairs = jnp.array([[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]])
    epsilon = jnp.array([0.5, 0.8])
    sigma = jnp.array([0.30, 0.32])
    epsfix = jnp.array([])
    sigfix = jnp.array([])
    mscales = jnp.array([0.0, 0.0, 0.5, 1.0, 1.0, 1.0])
    args = (positions, box, pairs, epsilon, sigma, epsfix, sigfix, mscales)

    ljforce = LennardJonesForce(r_cut, r_cut, map_lj, map_nbfix, colv_map,
                                isSwitch=False, isPBC=True, isNoCut=False)
    ljenergy = ljforce.generate_get_energy()
    # observed: line 114 indexes the NumPy map_prm with traced pairs and raises; line 115 is the same, not reached
    assert raising_line(jax.jit(ljenergy), *args) == ("TracerArrayConversionError", 114)

    ljforce = LennardJonesForce(r_cut, r_cut, jnp.asarray(map_lj), map_nbfix, colv_map,
                                isSwitch=False, isPBC=True, isNoCut=False)
    ljenergy = ljforce.generate_get_energy()
    # observed: line 77 indexes sig with the traced cutoff mask and raises; line 78 and line 79 are the same, not reached
    assert raising_line(jax.jit(ljenergy), *args) == ("NonConcreteBooleanIndexError", 77)
