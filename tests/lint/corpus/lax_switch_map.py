import jax
import jax.numpy as jnp
from jax import lax

ACTIVATIONS = (jax.nn.relu, jax.nn.gelu, jnp.tanh)


def apply_activation(index, x):
    return lax.switch(index, ACTIVATIONS, x)


def per_row_norm(xs):
    def row(r):
        n = jnp.linalg.norm(r)
        return r / n if n > 0 else r  # expect: JIT101

    return lax.map(row, xs)


def per_row_norm_ok(xs):
    def row(r):
        n = jnp.linalg.norm(r)
        return r / jnp.where(n > 0, n, 1.0)

    return lax.map(row, xs)


def branches(i, x):
    def neg(v):
        return -v

    def clamp(v):
        if v.ndim == 0:
            return jnp.clip(v, -1, 1)
        return v

    return lax.switch(i, [neg, clamp], x)
