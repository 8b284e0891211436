from functools import partial

import jax
import jax.numpy as jnp


class Pool:
    def __init__(self, n, mode="avg"):
        self.n = n
        self.mode = mode

    @partial(jax.jit, static_argnums=(0,))
    def __call__(self, x):
        if self.n > 3 and self.mode == "avg":
            return x.reshape(-1, self.n).mean(-1)
        for i in range(self.n):
            x = jnp.maximum(x, jnp.roll(x, i))
        return x

    @partial(jax.jit, static_argnums=(0,))
    def thresholded(self, x, t):
        if x.max() > t:  # expect: JIT101
            return x / x.max()
        return x
