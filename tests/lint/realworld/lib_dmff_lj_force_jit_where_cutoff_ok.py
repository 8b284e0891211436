# source: https://github.com/deepmodeling/DMFF/blob/9a0523db93bb39d31cece009734d5d46582f13e6/dmff/classical/inter.py
#   (DMFF's Lennard-Jones force as the library has it now: map_prm stored as a jnp array, the
#   cutoff applied by jnp.where, the NBFIX pairs applied by a Python loop over the NumPy
#   map_nbfix; the accepted form of the jit fixes in dmff_2c688f2_lj_numpy_map_prm_and_cutoff_mask.py)
# observed on jax 0.10.2 CPU: jax.jit of the energy (with and without the switch, with an
#   NBFIX pair, with `aux`) traces and agrees with the eager energy; jax.grad of the jitted
#   energy in the LJ parameters runs. Kept verbatim: LennardJonesForce, `regularize_pairs`
#   and `pair_buffer_scales` from dmff/utils.py (with their jit_condition() decorator spelled
#   as jax.jit, which it is by default), `pbc_shift`/`v_pbc_shift` from dmff/admp/spatial.py
#   (with its jit_condition decorator spelled as jax.jit). Added: the imports; a stand-in
#   system of four atoms of two LJ types in a 3 nm box, its six pairs with covalent-map
#   column as DMFF's neighbor list returns them, and the `__main__` block.
# gap: exemption-vs-JAX
import numpy as np
import jax
import jax.numpy as jnp
from jax import vmap


# --- dmff/utils.py -----------------------------------------------------------------------
@jax.jit
@vmap
def regularize_pairs(p):
    dp = p[1] - p[0]
    dp = jnp.piecewise(
        dp, (dp <= 0, dp > 0), (lambda x: jnp.array(1), lambda x: jnp.array(0))
    )
    dp_vec = jnp.array([dp, 2 * dp])
    p = p - dp_vec
    return p


@jax.jit
@vmap
def pair_buffer_scales(p):
    return jnp.piecewise(
        p[0] - p[1],
        (p[0] - p[1] < 0, p[0] - p[1] >= 0),
        (lambda x: jnp.array(1), lambda x: jnp.array(0)),
    )


# --- dmff/admp/spatial.py ----------------------------------------------------------------
@jax.jit
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
        isSwitch: bool = False,
        isPBC: bool = True,
        isNoCut: bool = False
    ) -> None:
        self.isSwitch = isSwitch
        self.r_switch = r_switch
        self.r_cut = r_cut

        self.map_prm = jnp.array(map_prm)
        self.map_nbfix = map_nbfix
        self.ifPBC = isPBC
        self.ifNoCut = isNoCut

    def generate_get_energy(self):
        def get_LJ_energy(dr_vec, sig, eps, box):
            if self.ifPBC:
                dr_vec = v_pbc_shift(dr_vec, box, jnp.linalg.inv(box))
            dr_norm = jnp.linalg.norm(dr_vec, axis=1)

            dr_inv = 1.0 / dr_norm
            sig_dr = sig * dr_inv
            sig_dr6 = jnp.power(sig_dr, 6)
            sig_dr12 = jnp.power(sig_dr6, 2)
            E = 4.0 * eps * (sig_dr12 - sig_dr6)

            if self.isSwitch:
                x = (dr_norm - self.r_switch) / (self.r_cut - self.r_switch)
                S = 1 - 6. * x ** 5 + 15. * x ** 4 - 10. * x ** 3
                E = jnp.where(dr_norm > self.r_switch, E * S, E)
                E = jnp.where(dr_norm >= self.r_cut, 0., E)
            
            return E

        def get_energy(positions, box, pairs, epsilon, sigma, epsfix, sigfix, mscales, aux=None):
            
            pairs = pairs.at[:, :2].set(regularize_pairs(pairs[:, :2]))
            mask = pair_buffer_scales(pairs[:, :2])
            map_prm = self.map_prm

            eps_m1 = jnp.repeat(epsilon.reshape((-1, 1)), epsilon.shape[0], axis=1)
            eps_m2 = eps_m1.T
            eps_mat = jnp.sqrt(eps_m1 * eps_m2 + 1e-32)
            sig_m1 = jnp.repeat(sigma.reshape((-1, 1)), sigma.shape[0], axis=1)
            sig_m2 = sig_m1.T
            sig_mat = (sig_m1 + sig_m2) * 0.5
            
            for _map in self.map_nbfix:
                eps_mat = eps_mat.at[_map[0],_map[1]].set(epsfix[_map[2]])
                eps_mat = eps_mat.at[_map[1],_map[0]].set(epsfix[_map[2]])
                sig_mat = sig_mat.at[_map[0],_map[1]].set(sigfix[_map[2]])
                sig_mat = sig_mat.at[_map[1],_map[0]].set(sigfix[_map[2]])

            colv_pair = pairs[:, 2]
            mscale_pair = mscales[colv_pair-1] # in mscale vector, the 0th item is 1-2 scale, the 1st item is 1-3 scale, etc...

            dr_vec = positions[pairs[:, 0]] - positions[pairs[:, 1]]
            prm_pair0 = map_prm[pairs[:, 0]]
            prm_pair1 = map_prm[pairs[:, 1]]
            eps = eps_mat[prm_pair0, prm_pair1]
            sig = sig_mat[prm_pair0, prm_pair1]

            eps_scale = eps * mscale_pair

            E_inter = get_LJ_energy(dr_vec, sig, eps_scale, box)
            if aux is None:
                return jnp.sum(E_inter * mask)
            else:
                return jnp.sum(E_inter * mask), aux

        return get_energy




if __name__ == "__main__":
    map_lj = np.array([0, 1, 1, 0], dtype=int)
    map_nbfix = np.array([[0, 1, 0]], dtype=int)
    positions = jnp.array([[0.1, 0.1, 0.1], [0.45, 0.1, 0.1], [0.1, 0.5, 0.1], [2.9, 2.9, 2.9]])
    box = jnp.eye(3) * 3.0
    # pairs i<j padded as DMFF's neighbor list gives them, third column the covalent-map value
    pairs = jnp.array([[0, 1, 1], [0, 2, 2], [0, 3, 4], [1, 2, 3], [1, 3, 5], [2, 3, 6], [4, 4, 6]])
    epsilon = jnp.array([0.5, 0.8])
    sigma = jnp.array([0.30, 0.32])
    epsfix = jnp.array([0.6])
    sigfix = jnp.array([0.31])
    mscales = jnp.array([0.0, 0.0, 0.5, 1.0, 1.0, 1.0])

    def check(isSwitch):
        ljforce = LennardJonesForce(0.9, 1.0, map_lj, map_nbfix, isSwitch=isSwitch, isPBC=True)
        get_energy = ljforce.generate_get_energy()
        energy_jit = jax.jit(get_energy)
        args = (positions, box, pairs, epsilon, sigma, epsfix, sigfix, mscales)
        e_jit = energy_jit(*args)
        e_eager = get_energy(*args)
        assert jnp.allclose(e_jit, e_eager), (e_jit, e_eager)
        e_aux, aux = energy_jit(*args, aux={"step": jnp.array(1)})
        assert jnp.allclose(e_aux, e_eager)
        g = jax.jit(jax.grad(get_energy, argnums=(3, 4)))(*args)
        assert all(bool(jnp.all(jnp.isfinite(x))) for x in g)
        return e_jit

    print("ok", check(False), check(True))
