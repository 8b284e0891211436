# source: https://github.com/quantumlib/OpenFermion/pull/1396 (the fix, commit e7042ee3:
#   https://github.com/quantumlib/OpenFermion/blob/e7042ee3/src/openfermion/resource_estimates/pbc/thc/factorizations/thc_jax.py)
# observed on jax 0.10.2 CPU: with `return cast(float, res)` the jitted
#   compute_objective_batched returns the traced objective untouched; the Python driver
#   loops over k-points and batches calling the top-level jitted helpers (each compiled once
#   per shape) and sums the results; runs clean.
#   Kept: unpack_thc_factors, compute_objective_batched, prepare_batched_data_indx_arrays,
#   get_batched_data_1indx/2indx and thc_objective_regularized_batched as in the file.
#   Left out: the pyscf/h5py/scipy imports and the functions that need them. Added: the
#   __main__ block with a small random 2-k-point problem (num_orb=2, num_thc=3, one G
#   vector per q) as input.
# gap: other
import math
from typing import cast

import numpy as np
import numpy.typing as npt

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp
import jax.typing as jnpt


def unpack_thc_factors(
    xcur: npt.NDArray | jax.Array, num_thc: int, num_orb: int, num_kpts: int, num_g_per_q: list[int]
) -> tuple[npt.NDArray | jax.Array, list[npt.NDArray | jax.Array]]:
    """Unpack THC factors from flattened array used for reoptimization.

    Args:
        xcur: Flattened array containing k-point THC factors.
        num_thc: THC rank.
        num_orb: Number of orbitals.
        num_kpts: Number of kpoints.
        num_g_per_q: number of g vectors per q vector.

    Returns:
        chi: THC leaf tensor.
        zeta: THC central tensor.
    """
    # leaf tensor (num_kpts, num_orb, num_thc)
    chi_size = num_kpts * num_orb * num_thc
    chi_real = xcur[:chi_size].reshape(num_kpts, num_orb, num_thc)
    chi_imag = xcur[chi_size : 2 * chi_size].reshape(num_kpts, num_orb, num_thc)
    chi = chi_real + 1j * chi_imag
    zeta_packed = xcur[2 * chi_size :]
    zeta = []
    start = 0
    for iq in range(num_kpts):
        num_g = num_g_per_q[iq]
        size = num_g * num_g * num_thc * num_thc
        zeta_real = zeta_packed[start : start + size].reshape((num_g, num_g, num_thc, num_thc))
        zeta_imag = zeta_packed[start + size : start + 2 * size].reshape(
            (num_g, num_g, num_thc, num_thc)
        )
        zeta.append(zeta_real + 1j * zeta_imag)
        start += 2 * size
    return chi, zeta



@jax.jit
def compute_objective_batched(
    chis: tuple[jax.Array, jax.Array, jax.Array, jax.Array],
    zetas: jax.Array,
    chols: tuple[jax.Array, jax.Array],
    norm_factors: tuple[jax.Array, jax.Array, jax.Array, jax.Array],
    num_kpts: int,
    penalty_param: float = 0.0,
) -> float:
    """Compute THC objective function.

    Batches evaluation over kpts.

    Args:
        chis: THC leaf tensor.
        zetas: THC central tensor.
        chols: Cholesky factors definining 'exact' eris.
        norm_factors: THC normalization factors.
        num_kpts: Number of k-points.
        penalty_param: Penalty parameter.

    Returns:
        objective: THC objective function
    """
    eri_thc = jnp.einsum(
        "Jpm,Jqm,Jmn,Jrn,Jsn->Jpqrs",
        chis[0].conj(),
        chis[1],
        zetas,
        chis[2].conj(),
        chis[3],
        optimize=True,
    )
    eri_ref = jnp.einsum("Jnpq,Jnrs->Jpqrs", chols[0], chols[1], optimize=True)
    deri = (eri_thc - eri_ref) / num_kpts
    norm_left = norm_factors[0] * norm_factors[1]
    norm_right = norm_factors[2] * norm_factors[3]
    mpq_normalized = (
        jnp.einsum("JP,JPQ,JQ->JPQ", norm_left, zetas, norm_right, optimize=True) / num_kpts
    )

    lambda_z = jnp.sum(jnp.einsum("jpq->j", 0.5 * jnp.abs(mpq_normalized)) ** 2.0)

    res = 0.5 * jnp.sum((jnp.abs(deri)) ** 2) + penalty_param * lambda_z
    return cast(float, res)


def prepare_batched_data_indx_arrays(
    momentum_map: npt.NDArray, gpq_map: npt.NDArray
) -> tuple[npt.NDArray, npt.NDArray]:
    r"""Create arrays to batch over.

    Flatten sum_q sum_{k,k_prime} -> sum_q \sum_{indx} and pack momentum
    conserving indices and central tensors so we can sum over indx efficiently.

    Args:
        momentum_map: momentum transfer mapping. map[iQ, ik_p] -> ik_q;
            (kpts[ikp] - kpts[ikq])%G = kpts[iQ].
        gpq_map: maps momentum conserving tuples of kpoints to reciprocal
            lattice vectors in THC central tensor.

    Returns:
        indx_pqrs: momentum conserving k-point indices.
        zetas: Batches Central tensors.
    """
    num_kpts = momentum_map.shape[0]
    indx_pqrs = np.zeros((num_kpts, num_kpts**2, 4), dtype=jnp.int32)
    zetas = np.zeros((num_kpts, num_kpts**2, 2), dtype=jnp.int32)
    for iq in range(num_kpts):
        indx = 0
        for ik in range(num_kpts):
            ik_minus_q = momentum_map[iq, ik]
            gpq = gpq_map[iq, ik]
            for ik_prime in range(num_kpts):
                ik_prime_minus_q = momentum_map[iq, ik_prime]
                gsr = gpq_map[iq, ik_prime]
                indx_pqrs[iq, indx] = [ik, ik_minus_q, ik_prime_minus_q, ik_prime]
                zetas[iq, indx] = [gpq, gsr]
                indx += 1
    return indx_pqrs, zetas


@jax.jit
def get_batched_data_1indx(array: jax.Array, indx: jax.Array) -> jax.Array:
    """Helper function to extract entries of array given another array.

    Args:
        array: Array to index
        indx: Indexing array

    Retuns:
        indexed_array: i.e. array[indx]
    """
    return array[indx]


@jax.jit
def get_batched_data_2indx(array: jax.Array, indxa: jax.Array, indxb: jax.Array) -> jax.Array:
    """Helper function to extract entries of 2D array given another array

    Args:
        array: Array to index
        indxa: Indexing array
        indxb: Indexing array

    Retuns:
        indexed_array: i.e. array[indxa, indxb]
    """
    return array[indxa, indxb]


def thc_objective_regularized_batched(
    xcur: npt.NDArray | jax.Array,
    num_orb: int,
    num_thc: int,
    momentum_map: npt.NDArray,
    gpq_map: npt.NDArray,
    chol: npt.NDArray | jax.Array,
    indx_arrays: tuple[npt.NDArray, npt.NDArray],
    batch_size: int,
    penalty_param=0.0,
) -> float:
    """Compute THC objective function.

    Here we batch over multiple k-point indices for improved GPU efficiency.

    Args:
        xcur: Flattened array containing k-point THC factors.
        num_orb: Number of orbitals.
        num_thc: THC rank.
        momentum_map: momentum transfer mapping. map[iQ, ik_p] -> ik_q;
            (kpts[ikp] - kpts[ikq])%G = kpts[iQ].
        gpq_map: Maps momentum conserving tuples of kpoints to reciprocal
            lattice vectors in THC central tensor.
        chol: Cholesky factors definining 'exact' eris.
        indx_arrays: Batched index arrays (see prepare_batched_data_indx_arrays)
        batch_size: Size of each batch of data. Should be in range
        [1, num_kpts**2]. penalty_param: Penalty param if computing regularized
        cost function.

    Returns:
        objective: THC objective function
    """
    num_kpts = momentum_map.shape[0]
    num_g_per_q = [len(np.unique(gq)) for gq in gpq_map]
    chi_packed, zeta_list = unpack_thc_factors(xcur, num_thc, num_orb, num_kpts, num_g_per_q)
    chi_jax = jnp.asarray(chi_packed)
    # Normalization factor, no factor of sqrt as there are 4 chis in total when
    # building ERI.
    norm_kp = jnp.einsum("kpP,kpP->kP", chi_jax.conj(), chi_jax, optimize=True) ** 0.5
    num_batches = math.ceil(num_kpts**2 / batch_size)

    indx_pqrs, indx_zeta = indx_arrays
    objective = 0.0
    for iq in range(num_kpts):
        for ibatch in range(num_batches):
            start = ibatch * batch_size
            end = (ibatch + 1) * batch_size
            chi_p = get_batched_data_1indx(chi_jax, indx_pqrs[iq, start:end, 0])
            chi_q = get_batched_data_1indx(chi_jax, indx_pqrs[iq, start:end, 1])
            chi_r = get_batched_data_1indx(chi_jax, indx_pqrs[iq, start:end, 2])
            chi_s = get_batched_data_1indx(chi_jax, indx_pqrs[iq, start:end, 3])
            norm_k1 = get_batched_data_1indx(norm_kp, indx_pqrs[iq, start:end, 0])
            norm_k2 = get_batched_data_1indx(norm_kp, indx_pqrs[iq, start:end, 1])
            norm_k3 = get_batched_data_1indx(norm_kp, indx_pqrs[iq, start:end, 2])
            norm_k4 = get_batched_data_1indx(norm_kp, indx_pqrs[iq, start:end, 3])
            zeta_batch = get_batched_data_2indx(
                jnp.asarray(zeta_list[iq]), indx_zeta[iq, start:end, 0], indx_zeta[iq, start:end, 1]
            )
            chol_batch_pq = get_batched_data_2indx(
                jnp.asarray(chol), indx_pqrs[iq, start:end, 0], indx_pqrs[iq, start:end, 1]
            )
            chol_batch_rs = get_batched_data_2indx(
                jnp.asarray(chol), indx_pqrs[iq, start:end, 2], indx_pqrs[iq, start:end, 3]
            )
            objective += compute_objective_batched(
                (chi_p, chi_q, chi_r, chi_s),
                zeta_batch,
                (chol_batch_pq, chol_batch_rs),
                (norm_k1, norm_k2, norm_k3, norm_k4),
                num_kpts,
                penalty_param=penalty_param,
            )
    return objective



if __name__ == "__main__":
    num_kpts, num_orb, num_thc, naux = 2, 2, 3, 4
    momentum_map = np.array([[0, 1], [1, 0]])
    gpq_map = np.zeros((num_kpts, num_kpts), dtype=np.int32)
    rng = np.random.default_rng(0)
    size = 2 * num_kpts * num_orb * num_thc + num_kpts * 2 * num_thc * num_thc
    xcur = rng.standard_normal(size)
    chol = rng.standard_normal((num_kpts, num_kpts, naux, num_orb, num_orb)) + 0j
    indx_arrays = prepare_batched_data_indx_arrays(momentum_map, gpq_map)
    print(
        thc_objective_regularized_batched(
            xcur, num_orb, num_thc, momentum_map, gpq_map, chol, indx_arrays, batch_size=2
        )
    )
