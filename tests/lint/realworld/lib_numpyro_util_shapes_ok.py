# source: https://github.com/pyro-ppl/numpyro/blob/0.22.0/numpyro/distributions/util.py
#   (clamp_probs, sum_rightmost, matrix_to_tril_vec; numpyro 0.22.0 as released, copied
#   unchanged)
# observed on jax 0.10.2 CPU: runs clean under jit: jnp.ndim, jnp.shape, jnp.finfo and
#   x.shape[-1] stay static under omnistaging.
# gap: omnistaging
import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

Array = jax.Array


def clamp_probs(probs: ArrayLike) -> Array:
    finfo = jnp.finfo(jnp.result_type(probs, float))
    return jnp.clip(probs, finfo.tiny, 1.0 - finfo.eps)


def sum_rightmost(x, dim):
    """
    Sum out ``dim`` many rightmost dimensions of a given tensor.
    """
    out_dim = jnp.ndim(x) - dim
    x = jnp.reshape(jnp.expand_dims(x, -1), jnp.shape(x)[:out_dim] + (-1,))
    return jnp.sum(x, axis=-1)


def matrix_to_tril_vec(x, diagonal=0):
    idxs = jnp.tril_indices(x.shape[-1], diagonal)
    return x[..., idxs[0], idxs[1]]


if __name__ == "__main__":
    print(jax.jit(clamp_probs)(jnp.array([0.0, 0.5, 1.0])))
    print(jax.jit(sum_rightmost, static_argnums=1)(jnp.ones((2, 3, 4)), 2))
    print(jax.jit(matrix_to_tril_vec)(jnp.arange(9.0).reshape(3, 3)))
