# source: https://github.com/jax-ml/jax/blob/main/docs/faq.rst ("How to use jit with methods?", Strategy 2, the example marked "WARNING: this example is broken": the JAX FAQ's copy of the Stack Overflow question retold at https://openillumi.com/en/en-jax-jit-class-method-stale-cache-fix, with `self` marked static)
# observed on jax 0.10.2 CPU: no error; after `c.mul = False` the method still returns 6 (should print 3): the static `self` is hashed by identity, so the cached trace with mul=True is reused
# gap: stale-state-attributes
# (the FAQ's doctest calls are moved into a __main__ block that checks the stale value)
from functools import partial

import jax.numpy as jnp
from jax import jit


class CustomClass:
    def __init__(self, x: jnp.ndarray, mul: bool):
        self.x = x
        self.mul = mul

    # WARNING: this example is broken, as we'll see below. Don't copy & paste!
    @partial(jit, static_argnums=0)
    def calc(self, y):
        if self.mul:  # expect: JIT201
            return self.x * y
        return y


if __name__ == "__main__":
    c = CustomClass(2, True)
    print(c.calc(3))
    c.mul = False
    out = c.calc(3)  # Should print 3
    print(out)
    # observed: line 19 `self.mul` of the static self is read at trace time only: after c.mul = False calc(3) still returns 6, not 3
    assert int(out) == 6
