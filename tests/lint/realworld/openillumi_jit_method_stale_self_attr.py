# source: https://openillumi.com/en/en-jax-jit-class-method-stale-cache-fix (a Stack Overflow question retold: `@jit` on the method `calc` of `CustomClass` fails on `self`, while `jit(c.calc)` on a bound method "works"; the same question's class is copied in the JAX FAQ "How to use jit with methods?", https://github.com/jax-ml/jax/blob/main/docs/faq.rst)
# observed on jax 0.10.2 CPU: no error; after `c.mul = False` the jitted bound method still returns 6 (the value of the first trace) where the method itself returns 3
# gap: stale-state-attributes
# (class body as in the question, without the failing @jit decorator; the `jit(c.calc)` call the asker found to work and the later mutation of `c.mul` are the asker's scenario; the __main__ block is added)
import jax.numpy as jnp
from jax import jit


class CustomClass:
    def __init__(self, x: jnp.ndarray, mul: bool):
        self.x = x
        self.mul = mul

    def calc(self, y):
        if self.mul:  # expect: JIT201
            return self.x * y
        return y


if __name__ == "__main__":
    c = CustomClass(2, True)
    jitted_calc = jit(c.calc)
    print(jitted_calc(3))  # 6
    c.mul = False
    stale = jitted_calc(3)
    fresh = c.calc(3)
    print(stale, fresh)
    # observed: line 15 `self.mul` is read once at trace time: after c.mul = False the jitted method still returns 6, the plain method 3
    assert int(stale) == 6 and int(fresh) == 3
