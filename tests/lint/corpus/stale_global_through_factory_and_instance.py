"""A global rebound between two calls of jitted code reached through a factory's result and
through an instance: both calls after the rebinding keep the first trace's value."""

import jax

scale = 1.0


def make_step():
    @jax.jit
    def step(x):
        return x * scale  # expect: JIT201

    return step


class Model:
    @staticmethod
    @jax.jit
    def apply(x):
        return x * scale  # expect: JIT201


step = make_step()
model = Model()
first = (step(1.0), model.apply(1.0))
scale = 2.0
second = (step(1.0), model.apply(1.0))
assert first == second == (1.0, 1.0)  # the new scale is never read
