# source: https://github.com/blackjax-devs/blackjax/blob/0100e7154c07dc8b620a353bcb3fa25c534255c5/blackjax/util.py
# observed on jax 0.10.2 CPU: runs clean under jit. `linear_map` is jitted with `precision`
#   static and branches on `jnp.ndim(diag_or_dense_a)`, a Python int taken from the shape,
#   so the `if` picks `lax.mul` or `lax.dot` at trace time; `generate_gaussian_noise` draws
#   once from the key it is given; `pytree_size` sums the static sizes of the leaves.
#   `linear_map`, `generate_gaussian_noise` and `pytree_size` are kept as they were (the
#   rest of the module, `unflatten_array`, is left out, the docstrings are shortened,
#   `Array` and `PRNGKey` come from blackjax.types and `PyTree`, which blackjax 1.7 no
#   longer defines, is a stand-in alias of Any); the jitted calls in __main__ are added.
# gap: exemption-vs-JAX
# unverifiable: needs blackjax, which the test extra does not install (verified when collected, on jax 0.10.2 with blackjax installed)
from functools import partial
from typing import Any, Union

import jax
import jax.numpy as jnp
from jax import jit, lax
from jax.flatten_util import ravel_pytree
from jax.random import normal
from jax.tree_util import tree_leaves

from blackjax.types import Array, PRNGKey

PyTree = Any


@partial(jit, static_argnames=("precision",), inline=True)
def linear_map(diag_or_dense_a, b, *, precision="highest"):
    """Perform a linear map of the form y = Ax.

    Dispatch matrix multiplication to either jnp.dot or jnp.multiply.

    Unlike jax.numpy.dot, this function output an Array that match the dtype
    and shape of the 2nd input:
    - diag_or_dense_a is a scalar or 1d vector, `diag_or_dense_a * b` is returned
    - diag_or_dense_a is a 2d matrix, `diag_or_dense_a @ b` is returned
    """
    dtype = jnp.result_type(diag_or_dense_a.dtype, b.dtype)
    diag_or_dense_a = diag_or_dense_a.astype(dtype)
    b = b.astype(dtype)
    ndim = jnp.ndim(diag_or_dense_a)

    if ndim <= 1:
        return lax.mul(diag_or_dense_a, b)
    else:
        return lax.dot(diag_or_dense_a, b, precision=precision)


# TODO(https://github.com/blackjax-devs/blackjax/issues/376)
# Refactor this function to not use ravel_pytree might be more performant.
def generate_gaussian_noise(
    rng_key: PRNGKey,
    position: PyTree,
    mu: Union[float, Array] = 0.0,
    sigma: Union[float, Array] = 1.0,
) -> PyTree:
    """Generate N(mu, sigma) noise with output structure that match a given PyTree."""
    p, unravel_fn = ravel_pytree(position)
    sample = normal(rng_key, shape=p.shape, dtype=p.dtype)
    return unravel_fn(mu + linear_map(sigma, sample))


def pytree_size(pytree: PyTree) -> int:
    """Return the dimension of the flatten PyTree."""
    return sum(jnp.size(value) for value in tree_leaves(pytree))


if __name__ == "__main__":
    position = {"a": jnp.zeros(2), "b": jnp.zeros(())}

    @jax.jit
    def noise(rng_key, diag_sigma, dense_sigma):
        key_diag, key_dense = jax.random.split(rng_key)
        return (generate_gaussian_noise(key_diag, position, sigma=diag_sigma),
                generate_gaussian_noise(key_dense, position, sigma=dense_sigma),
                pytree_size(position))

    diag_noise, dense_noise, size = noise(
        jax.random.PRNGKey(0), jnp.ones(3), 2.0 * jnp.eye(3))
    assert size == 3 and diag_noise["a"].shape == (2,) and dense_noise["b"].shape == ()
