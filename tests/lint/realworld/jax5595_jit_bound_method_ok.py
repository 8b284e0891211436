# source: https://github.com/jax-ml/jax/issues/5595 (the working form in the report and the
#   answer's `partial(jit, static_argnums=0)` form, with the print added to show the result)
# observed on jax 0.10.2 CPU: both run clean; a jitted bound method closes over self.
# gap: exemption-vs-JAX
from functools import partial

import jax
from jax import jit


class A1:
    def __init__(self):
        self.f = jax.jit(self.f)
        pass

    # @jit
    def f(self, x):
        return x


class A2:
    @partial(jit, static_argnums=0)
    def f(self, x):
        return x


a = A1()
print(a.f(5))
print(A2().f(5))
