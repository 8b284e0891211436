"""Traced values passed as `.at[]` update values and as random bounds are not shapes."""

import jax
import jax.numpy as jnp
from jax import lax, random


@jax.jit
def relax(costs, j, r):
    costs = costs.at[j].min(r)
    costs = costs.at[j + 1].max(r * 2)
    return costs.at[0].add(r)


def fisher_yates(key, size):
    keys = random.split(key, size)

    def body(val, idx):
        upper = size - idx
        j = random.randint(keys[idx], (), 0, upper)
        i = upper - 1
        val = val.at[jnp.array([i, j])].set(val[jnp.array([j, i])])
        return val, None

    return lax.scan(body, jnp.arange(size), jnp.arange(size))[0]


@jax.jit
def sample_bounded(key, lo, hi):
    return random.uniform(key, (3,), minval=lo, maxval=hi)
