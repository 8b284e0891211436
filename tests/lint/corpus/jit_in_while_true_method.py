import functools

import jax


class Runner:
    def __init__(self, scale):
        self.scale = scale

    def _apply(self, x, factor):
        return x * factor

    def run(self, x, steps):
        i = 0
        while True:
            f = jax.jit(functools.partial(self._apply, factor=self.scale))  # expect: JIT301
            x = f(x)
            i += 1
            if i >= steps:
                break
        return x
