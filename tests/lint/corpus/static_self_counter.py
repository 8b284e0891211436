from functools import partial

import jax
import jax.numpy as jnp


class Counter:
    def __init__(self):
        self.calls = 0
        self.seen = []

    @partial(jax.jit, static_argnums=0)
    def __call__(self, x):
        self.calls += 1  # expect: JIT202
        self.seen.append(x.shape)  # expect: JIT202
        return x * 2
