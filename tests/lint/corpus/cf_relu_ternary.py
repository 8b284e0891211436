import jax
import jax.numpy as jnp


@jax.jit
def leaky(x, slope=0.01):
    return x if x > 0 else slope * x  # expect: JIT101


@jax.jit
def leaky_ok(x, slope=0.01):
    return jnp.where(x > 0, x, slope * x)


@jax.jit
def pick_axis(x):
    axis = -1 if x.ndim > 1 else 0
    return jnp.sum(x, axis=axis)
