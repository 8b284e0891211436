import time

import jax
import jax.numpy as jnp


@jax.jit
def with_seed(x):
    seed = int(time.monotonic() * 1000) % 2**31  # expect: JIT204
    return x + seed


def seed_host():
    return int(time.monotonic() * 1000) % 2**31
