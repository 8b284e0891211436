# source: https://github.com/proteneer/timemachine/pull/800 (the fix: generic.Nonbonded.to_reference
#   now passes runtime_validate=False, https://github.com/proteneer/timemachine/blob/23f1513c2f0cb640370dad10a54314071301788e/timemachine/potentials/generic.py;
#   nonbonded_v3 and its helpers from nonbonded.py and jax_utils.py at the same commit, with
#   docstrings left out, generic.Nonbonded keeping only to_reference, and the module level
#   running the PR's new test with `rng = default_rng(0)`)
# observed on jax 0.10.2 CPU: runs clean under jit: with runtime_validate=False the
#   assertions and validate_coulomb_cutoff's Python `if` on erfc(beta * cutoff) are skipped.
# gap: omnistaging
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.special import erfc
from numpy.typing import NDArray

Array = NDArray


def compute_lifting_parameter(lamb, lambda_plane_idxs, lambda_offset_idxs, cutoff):
    w = cutoff * (lambda_plane_idxs + lambda_offset_idxs * lamb)
    return w


def augment_dim(x3: Array, w: Array) -> Array:
    """(x,y,z) -> (x,y,z,w)"""

    d4 = jnp.expand_dims(w, axis=-1)
    x4 = jnp.concatenate((x3, d4), axis=1)

    assert len(x4) == len(x3)
    assert x4.shape[1] == 4

    return x4


def convert_to_4d(x3, lamb, lambda_plane_idxs, lambda_offset_idxs, cutoff):
    """(x,y,z) -> (x,y,z,w) where w = cutoff * (lambda_plane_idxs + lambda_offset_idxs * lamb)"""
    w = compute_lifting_parameter(lamb, lambda_plane_idxs, lambda_offset_idxs, cutoff)
    return augment_dim(x3, w)


def delta_r(ri, rj, box=None):
    diff = ri - rj  # this can be either N,N,3 or B,3

    # box is None for harmonic bonds, not None for nonbonded terms
    if box is not None:
        box_diag = jnp.diag(box)
        diff -= box_diag * jnp.floor(diff / box_diag + 0.5)
    return diff


def distance(x, box):
    # nonbonded distances require the periodic box
    assert x.shape[1] == 3 or x.shape[1] == 4  # 3d or 4d
    ri = jnp.expand_dims(x, 0)
    rj = jnp.expand_dims(x, 1)
    d2ij = jnp.sum(jnp.power(delta_r(ri, rj, box), 2), axis=-1)
    N = d2ij.shape[0]
    d2ij = jnp.where(jnp.eye(N), 0, d2ij)
    dij = jnp.where(jnp.eye(N), 0, jnp.sqrt(d2ij))
    return dij


def combining_rule_sigma(sig_i, sig_j):
    return sig_i + sig_j


def combining_rule_epsilon(eps_i, eps_j):
    return eps_i * eps_j


def convert_exclusions_to_rescale_masks(exclusion_idxs, scales, N):
    """Converts exclusions from list format used in Nonbonded to mask format used in nonbonded_v3"""

    # process masks for exclusions properly
    charge_rescale_mask = np.ones((N, N))  # to support item assignment
    for (i, j), exc in zip(exclusion_idxs, scales[:, 0]):
        charge_rescale_mask[i][j] = 1 - exc
        charge_rescale_mask[j][i] = 1 - exc

    lj_rescale_mask = np.ones((N, N))
    for (i, j), exc in zip(exclusion_idxs, scales[:, 1]):
        lj_rescale_mask[i][j] = 1 - exc
        lj_rescale_mask[j][i] = 1 - exc

    return charge_rescale_mask, lj_rescale_mask


def nonbonded_v3(
    conf,
    params,
    box,
    lamb,
    charge_rescale_mask,
    lj_rescale_mask,
    beta,
    cutoff,
    lambda_plane_idxs,
    lambda_offset_idxs,
    runtime_validate=True,
):
    if runtime_validate:
        assert (charge_rescale_mask == charge_rescale_mask.T).all()
        assert (lj_rescale_mask == lj_rescale_mask.T).all()

    N = conf.shape[0]

    if conf.shape[-1] == 3:
        conf = convert_to_4d(conf, lamb, lambda_plane_idxs, lambda_offset_idxs, cutoff)

    # make 4th dimension of box large enough so its roughly aperiodic
    if box is not None:
        if box.shape[-1] == 3:
            box_4d = jnp.eye(4) * 1000
            box_4d = box_4d.at[:3, :3].set(box)
        else:
            box_4d = box
    else:
        box_4d = None

    box = box_4d

    charges = params[:, 0]
    sig = params[:, 1]
    eps = params[:, 2]

    sig_i = jnp.expand_dims(sig, 0)
    sig_j = jnp.expand_dims(sig, 1)
    sig_ij = combining_rule_sigma(sig_i, sig_j)

    eps_i = jnp.expand_dims(eps, 0)
    eps_j = jnp.expand_dims(eps, 1)

    eps_ij = combining_rule_epsilon(eps_i, eps_j)

    dij = distance(conf, box)

    keep_mask = jnp.ones((N, N)) - jnp.eye(N)
    keep_mask = jnp.where(eps_ij != 0, keep_mask, 0)

    if cutoff is not None:
        if runtime_validate:
            validate_coulomb_cutoff(cutoff, beta, threshold=1e-2)
        eps_ij = jnp.where(dij < cutoff, eps_ij, 0)

    # (ytz): this avoids a nan in the gradient in both jax and tensorflow
    sig_ij = jnp.where(keep_mask, sig_ij, 0)
    eps_ij = jnp.where(keep_mask, eps_ij, 0)

    inv_dij = 1 / dij
    inv_dij = jnp.where(jnp.eye(N), 0, inv_dij)

    sig2 = sig_ij * inv_dij
    sig2 *= sig2
    sig6 = sig2 * sig2 * sig2

    eij_lj = 4 * eps_ij * (sig6 - 1.0) * sig6
    eij_lj = jnp.where(keep_mask, eij_lj, 0)

    qi = jnp.expand_dims(charges, 0)  # (1, N)
    qj = jnp.expand_dims(charges, 1)  # (N, 1)
    qij = jnp.multiply(qi, qj)

    # (ytz): trick used to avoid nans in the diagonal due to the 1/dij term.
    keep_mask = 1 - jnp.eye(N)
    qij = jnp.where(keep_mask, qij, 0)
    dij = jnp.where(keep_mask, dij, 0)

    # funny enough lim_{x->0} erfc(x)/x = 0
    eij_charge = jnp.where(keep_mask, qij * erfc(beta * dij) * inv_dij, 0)  # zero out diagonals
    if cutoff is not None:
        eij_charge = jnp.where(dij > cutoff, 0, eij_charge)

    eij_total = eij_lj * lj_rescale_mask + eij_charge * charge_rescale_mask

    return jnp.sum(eij_total / 2)


def validate_coulomb_cutoff(cutoff=1.0, beta=2.0, threshold=1e-2):
    """check whether f(r) = erfc(beta * r) <= threshold at r = cutoff
    following https://github.com/proteneer/timemachine/pull/424#discussion_r629678467"""
    if erfc(beta * cutoff) > threshold:
        print(UserWarning(f"erfc(beta * cutoff) = {erfc(beta * cutoff)} > threshold = {threshold}"))


@dataclass
class Nonbonded:
    exclusion_idxs: Array
    scale_factors: Array
    lambda_plane_idxs: Array
    lambda_offset_idxs: Array
    beta: float
    cutoff: float

    def to_reference(self):
        charge_rescale_mask, lj_rescale_mask = convert_exclusions_to_rescale_masks(
            self.exclusion_idxs, self.scale_factors, len(self.lambda_plane_idxs)
        )

        def U(conf, params, box, lam):
            return nonbonded_v3(
                conf,
                params,
                box,
                lam,
                charge_rescale_mask,
                lj_rescale_mask,
                self.beta,
                self.cutoff,
                self.lambda_plane_idxs,
                self.lambda_offset_idxs,
                runtime_validate=False,  # needed for this to be JAX-transformable
            )

        return U


rng = np.random.default_rng(0)

N = 30

potential = Nonbonded(
    exclusion_idxs=jnp.zeros((0,)),
    scale_factors=jnp.zeros((0, 1)),
    lambda_plane_idxs=jnp.zeros(N),
    lambda_offset_idxs=jnp.zeros(N),
    beta=1.0,
    cutoff=0.1,
)

U_ref = potential.to_reference()
U_ref_jit = jax.jit(U_ref)

_ = U_ref_jit(
    conf=rng.uniform(0, 1, size=(N, 3)),
    params=rng.uniform(0, 1, size=(N, 3)),
    box=10.0 * np.eye(3),
    lam=0.1,
)
