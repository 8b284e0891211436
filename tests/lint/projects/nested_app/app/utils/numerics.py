import jax.numpy as jnp


def safe_log(x):
    return jnp.log(jnp.maximum(x, 1e-8))


def count_positive(x):
    return int(jnp.sum(x > 0))  # expect: JIT401


def clamp(x, limit):
    while jnp.max(jnp.abs(x)) > limit:  # expect: JIT102
        x = x / 2
    return x
