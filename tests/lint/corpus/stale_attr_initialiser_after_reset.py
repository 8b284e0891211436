"""A run-once initialiser a `reset` can run again: the jitted step keeps the first weights."""

from functools import partial

import jax
import jax.numpy as jnp


class Reservoir:
    initialized = False

    def __init__(self, units, gain):
        self.units = units
        self.gain = gain
        self.W = None

    def initialize(self):
        self.W = jnp.eye(self.units) * self.gain
        self.initialized = True

    def reset(self, gain):
        self.gain = gain
        self.initialized = False

    def step(self, s):
        if not self.initialized:
            self.initialize()
        return self._step(s)

    @partial(jax.jit, static_argnums=0)
    def _step(self, s):
        return jnp.tanh(self.W @ s)  # expect: JIT201


r = Reservoir(3, 0.5)
first = r.step(jnp.ones(3))
r.reset(2.0)
second = r.step(jnp.ones(3))  # the new W is never read: the cached trace keeps the first
