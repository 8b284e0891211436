"""A namespace package (no __init__.py) under a configured source root."""

import jax
import jax.numpy as jnp


def ema_body(carry, x):
    new = 0.9 * carry + 0.1 * x
    if new > 10.0:  # expect: JIT101
        new = carry
    return new, new


def ema_body_fixed(carry, x):
    new = 0.9 * carry + 0.1 * x
    new = jnp.where(new > 10.0, carry, new)
    return new, new


def sample_noise(key, n):
    return jax.random.normal(key, (n,))
