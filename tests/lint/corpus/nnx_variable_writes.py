"""nnx Variables are mutable under nnx.jit: `[...]` writes update them on every call."""

import jax.numpy as jnp
from flax import nnx


class Counter(nnx.Module):
    def __init__(self):
        self.count = nnx.Variable(jnp.array(0))
        self.total = nnx.Variable(jnp.array(0.0))


@nnx.jit
def observe(counter, x):
    counter.count[...] += 1
    counter.total[...] = counter.total[...] + x.sum()
    return x * 2


@nnx.jit
def reset(param):
    param[...] = jnp.zeros_like(param[...])


@nnx.jit
def bad_array_write(counter, x):
    y = x * 2
    y[0] = 0.0  # expect: JIT501
    return y
