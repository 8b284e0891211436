# source: https://github.com/jax-ml/jax/blob/055a88344ffe252fd8d57d5470c3201493aeb5b8/docs/faq.rst
#   ("How to use jit with methods?", Strategy 2: marking self as static)
# observed on jax 0.10.2 CPU: after `c.mul = False`, `c.calc(3)` still returns 6 where 3 is
#   right: `self` is a static argument hashed by id, so the mutation does not trigger a
#   retrace and `if self.mul:` keeps the value it read on the first trace. The FAQ marks
#   the example "broken ... Don't copy & paste!". The `>>>` prompts are removed and the
#   calls moved under `if __name__ == "__main__":`, with the printed values checked.
# gap: stale-state-attributes
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
  assert int(c.calc(3)) == 6

  c.mul = False
  stale = int(c.calc(3))  # Should print 3
  # observed: line 23 keeps the first trace's self.mul, so the call still multiplies
  assert stale == 6, stale
