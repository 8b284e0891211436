import jax
import jax.numpy as jnp


def clamp_one(v, hi):
    return hi if v > hi else v  # expect: JIT101


clamp_all = jax.jit(jax.vmap(clamp_one, in_axes=(0, None)))


def clamp_one_ok(v, hi):
    return jnp.minimum(v, hi)


clamp_all_ok = jax.jit(jax.vmap(clamp_one_ok, in_axes=(0, None)))
