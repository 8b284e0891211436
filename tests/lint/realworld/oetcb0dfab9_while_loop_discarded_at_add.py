# source: https://github.com/lnabergall/oe-tc-project-alpha/blob/b0dfab98e39fc296b02d82154672e2bed0f61b03/physics.py (neighborhood_potential_energies_dynamic; fixed in commit https://github.com/lnabergall/oe-tc-project-alpha/commit/35260c246fd03eaa39b8e6e0b844698183067d52 "fixed potential energy bug": `U_nbhd = U_nbhd.at[slice_].add(...)`)
# observed on jax 0.10.2 CPU: the while_loop body discards the result of U_nbhd.at[slice_].add(...), so the carry never changes and the function returns all zeros, while the non-dynamic neighborhood_potential_energies returns nonzero energies for the same input
# gap: other
# (added: geometry helpers copied from geometry.py at the same commit; only the potential-energy functions of physics.py are kept; the __main__ block with a small lattice)
# observed: line 142 the scatter-add result is discarded inside the while_loop body; neighborhood_potential_energies_dynamic returns zeros where neighborhood_potential_energies gives [-2, inf, 0, inf, 0]
"""
Note: we use matrix indexing, so row indexing is the first or x dimension and column indexing
is the second or y dimension. 
"""

from functools import partial

import jax
import jax.numpy as jnp


# --- stand-ins: helpers copied from geometry.py at the same commit (in place of `from utils import *` / `from geometry import *`) ---
def lattice_indices(A, n):
    return (A[..., 0] * n) + A[..., 1]


@partial(jax.jit, static_argnums=[1])
def cylindrical_coordinates(A, n):
    """
    Convert an array A of 2D vectors to cylindrical coordinates, 
    with a periodic first or 'x' dimension.
    """
    return A.at[..., 0].set(A[..., 0] % n)


@partial(jax.jit, static_argnums=[1])
def periodic_norm(x_diff, n):
    return jnp.min(jnp.stack((x_diff, n - x_diff)))


@partial(jax.jit, static_argnums=[2])
def lattice_distance(r, s, n):
    """Compute lattice distance between points r and s."""
    diff = jnp.abs(r - s)
    y_norm = diff[1]
    x_diff = diff[0]
    x_norm = periodic_norm(x_diff, n)
    norm = x_norm + y_norm
    return norm


lattice_distances = jax.vmap(lattice_distance, (0, 0, None))
lattice_distances_1D = jax.vmap(lattice_distance, (None, 0, None))
lattice_distances_2D = jax.vmap(lattice_distances_1D, (None, 0, None))


@jax.jit
def get_shifts():
    return jnp.array(((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)), dtype=int)


@partial(jax.jit, static_argnums=[1])
def generate_neighborhood(x, n, pad_value):
    """
    Generate the neighborhood of a point 'x' in a lattice of size n, 
    with periodic first dimension.
    """
    nbhd = cylindrical_coordinates(jnp.expand_dims(x, axis=0) + get_shifts(), n)
    nbhd = jnp.where((nbhd >= n) | (nbhd < 0), pad_value, nbhd)
    return nbhd


@partial(jax.jit, static_argnums=[1])
def generate_open_neighborhood(x, n, pad_value):
    """
    Generate the neighborhood of a point 'x' in a lattice of size n, with periodic first dimension, 
    strict boundaries on the second dimension, and excluding 'x' itself.
    """
    steps = jnp.array(((1, 0), (-1, 0), (0, 1), (0, -1)), dtype=int)
    nbhd = cylindrical_coordinates(x.reshape((1, 2)) + steps, n)
    nbhd = jnp.where((nbhd >= n) | (nbhd < 0), pad_value, nbhd)
    return nbhd


def neighborhood_mask(nbhd, R, n, pad_value):
    """
    Generates a 2D mask indicating where elements of 'nbhd' and 'R' coincide. 
    The first dimension indexes 'nbhd' while the second indexes 'R'.
    """
    nbhd_indices = lattice_indices(nbhd, n)     # open nbhd
    R_indices = lattice_indices(R, n)
    nbhd_mask = nbhd_indices[:, None, :] == R_indices[:, None][None, :, :]
    return nbhd_mask
# --- end of stand-ins ---


def occupied_neighbors(nbhd_I, R, n, pad_value):
    return neighborhood_mask(nbhd_I, R, n, pad_value).any(1)


def test_potential_energies(R_I, Q_I, R_test, Q, n, pad_value):
    nbhd = jax.vmap(generate_open_neighborhood, in_axes=(0, None, None))(R_I, n, pad_value)
    nbhd_mask = neighborhood_mask(nbhd, R_test, n, pad_value).any(-1)
    V = jnp.sum(nbhd_mask * Q[None, :], axis=-1)
    U = V * Q_I
    return U


@partial(jax.jit, static_argnums=[4, 5])
def neighborhood_potential_energies(I, nbhd_I, Q, R, n, pad_value):
    Q_I = Q[I]
    R_test = R.at[I].set(pad_value)

    # for pauli exclusion
    nbhd_occupation = occupied_neighbors(nbhd_I, R_test, n, pad_value)

    U_nbhd = jax.vmap(test_potential_energies, in_axes=(1, None, None, None, None, None))(
        nbhd_I, Q_I, R_test, Q, n, pad_value).T
    U_nbhd += jnp.nan_to_num(nbhd_occupation * jnp.inf, posinf=jnp.inf)
    return U_nbhd


@partial(jax.jit, static_argnums=[5, 6, 7])
def neighborhood_potential_energies_dynamic(I, nbhd_I, Q, R, indices, n, buffer_size, pad_value):
    remaining = I != pad_value
    slice_ = jnp.extract(remaining, indices, size=buffer_size, fill_value=pad_value)
    U_nbhd = jnp.zeros(nbhd_I.shape[:2])

    def cond_fn(args):
        remaining = args[2]
        return jnp.any(remaining)

    def potential_fn(args):
        U_nbhd, slice_, remaining = args
        I_slice = I[slice_]
        nbhd_I_slice = nbhd_I[slice_]
        Q_Is = Q[I_slice]
        R_test = R.at[I_slice].set(pad_value)

        # for pauli exclusion
        nbhd_occupation = occupied_neighbors(nbhd_I_slice, R_test, n, pad_value)

        U_nbhd_slice = jax.vmap(test_potential_energies, in_axes=(1, None, None, None, None, None))(
            nbhd_I_slice, Q_Is, R_test, Q, n, pad_value).T

        # update the carry
        U_nbhd.at[slice_].add(U_nbhd_slice + jnp.nan_to_num(nbhd_occupation * jnp.inf, posinf=jnp.inf))  # expect: JIT503
        remaining = remaining.at[slice_].set(False)
        slice_ = jnp.extract(remaining, I, size=buffer_size, fill_value=pad_value)
        return U_nbhd, slice_, remaining

    U_nbhd = jax.lax.while_loop(cond_fn, potential_fn, (U_nbhd, slice_, remaining))[0]
    return U_nbhd


if __name__ == "__main__":
    n, pad_value = 6, -1
    R = jnp.array([[1, 1], [1, 2], [2, 1], [4, 4]])
    Q = jnp.array([1, -1, -1, -1])
    I = jnp.array([0, 3])  # particles being updated
    indices = jnp.arange(I.shape[0])
    nbhd_I = jax.vmap(generate_neighborhood, in_axes=(0, None, None))(R[I], n, pad_value)
    U_static = neighborhood_potential_energies(I, nbhd_I, Q, R, n, pad_value)
    U_dynamic = neighborhood_potential_energies_dynamic(I, nbhd_I, Q, R, indices, n, I.shape[0], pad_value)
    print("static :", U_static)
    print("dynamic:", U_dynamic)
    assert jnp.abs(jnp.nan_to_num(U_static, posinf=0.0)).sum() > 0
    assert (U_dynamic == 0).all()  # the update was thrown away
