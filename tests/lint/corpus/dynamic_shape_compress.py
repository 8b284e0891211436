import jax
import jax.numpy as jnp


@jax.jit
def kept(x, keep):
    return jnp.compress(keep, x)  # expect: JIT403


@jax.jit
def kept_ok(x, keep):
    return jnp.where(keep, x, 0)


@jax.jit
def nonzero_sized(x):
    idx = jnp.flatnonzero(x, size=x.shape[0])
    return idx
