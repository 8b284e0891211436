import jax
import jax.numpy as jnp


@jax.jit
def has_nan(x):
    return bool(jnp.isnan(x).any())  # expect: JIT401


@jax.jit
def has_nan_ok(x):
    return jnp.isnan(x).any()


def has_nan_host(x):
    return bool(jnp.isnan(x).any())
