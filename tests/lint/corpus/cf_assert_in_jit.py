"""Input validation with assert inside jitted code."""

import jax
import jax.numpy as jnp


@jax.jit
def normalize(x):
    assert x.ndim == 2, "expected a matrix"
    assert x.shape[0] > 0
    assert jnp.all(jnp.isfinite(x)), "non-finite input"  # expect: JIT103
    return x / jnp.linalg.norm(x, axis=-1, keepdims=True)


@jax.jit
def safe_log(x):
    return jnp.log(jnp.maximum(x, 1e-12))


def validate_host(x):
    assert jnp.all(x >= 0)
    return x
