import jax
import jax.numpy as jnp


@jax.jit
def in_range(x, lo, hi):
    return (x >= lo) and (x <= hi)  # expect: JIT103


@jax.jit
def in_range_ok(x, lo, hi):
    return jnp.logical_and(x >= lo, x <= hi)


@jax.jit
def is_empty(x):
    return not x  # expect: JIT103


@jax.jit
def masked_mean(x, mask=None):
    if mask is not None and mask.ndim == x.ndim:
        return jnp.sum(x * mask) / jnp.sum(mask)
    return jnp.mean(x)
