"""A nested jitted function called, then its closed-over table rebound, then called again:
the second call keeps the first table (the first trace is cached)."""

import jax
import jax.numpy as jnp


def train(x, table):
    @jax.jit
    def step(x):
        return x + table  # expect: JIT201

    first = step(x)
    table = table * 10.0
    second = step(x)  # still adds the old table
    return first, second


a, b = train(jnp.ones(3), jnp.ones(3))
assert (a == b).all()
