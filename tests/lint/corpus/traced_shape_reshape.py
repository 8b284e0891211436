from functools import partial

import jax
import jax.numpy as jnp


@jax.jit
def split_heads(x, num_heads):
    b, t, d = x.shape
    return x.reshape(b, t, num_heads, d // num_heads)  # expect: JIT404


@partial(jax.jit, static_argnames="num_heads")
def split_heads_ok(x, num_heads):
    b, t, d = x.shape
    return x.reshape(b, t, num_heads, d // num_heads)


@jax.jit
def tile_rows(x, reps):
    return jnp.tile(x, (reps, 1))  # expect: JIT404


@jax.jit
def first_half(x):
    half = x.shape[0] // 2
    return x[:half], jnp.ones((half, x.ndim))
