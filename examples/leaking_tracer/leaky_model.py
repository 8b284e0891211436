"""A model that keeps its last hidden activation for debugging, written twice.

The buggy version stores ``self.last_hidden`` inside a jitted method. Inside ``jit`` the
activation is a tracer, so what gets stored is a tracer that outlives its trace: the
first later use raises ``UnexpectedTracerError`` far from the bug, or worse, nobody uses
it and the bug hides until someone does.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp


class BuggyMLP:
    def __init__(self):
        self.w1 = jnp.full((3, 4), 0.1, jnp.float32)
        self.w2 = jnp.full((4, 1), 0.2, jnp.float32)
        self.last_hidden = None

    @functools.partial(jax.jit, static_argnums=0)
    def __call__(self, x):
        hidden = jnp.tanh(x @ self.w1)
        self.last_hidden = hidden  # the leak: a tracer escapes through `self`
        return hidden @ self.w2


class FixedMLP:
    def __init__(self):
        self.w1 = jnp.full((3, 4), 0.1, jnp.float32)
        self.w2 = jnp.full((4, 1), 0.2, jnp.float32)
        self.last_hidden = None

    @functools.partial(jax.jit, static_argnums=0)
    def _forward(self, x):
        hidden = jnp.tanh(x @ self.w1)
        return hidden @ self.w2, hidden  # return it instead of storing it

    def __call__(self, x):
        out, self.last_hidden = self._forward(x)  # stored outside jit: a real array
        return out
