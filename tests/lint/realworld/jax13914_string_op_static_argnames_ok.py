# source: https://github.com/jax-ml/jax/issues/13914 (the "typical fix" in the description:
#   mark the string argument static)
# observed on jax 0.10.2 CPU: runs clean; with static_argnames=['op'] the string 'add' is a
#   Python value while tracing, the comparison picks a branch in Python, and f2 returns 3.0.
#   Added: the imports the snippet takes from the lines above it, and the check.
# gap: static-hashability
import jax
from jax import jit
from functools import partial
@partial(jit, static_argnames=['op'])
def f2(x, y, op):
  return x + y if op == 'add' else x * y

f2(1., 2., 'add')
# 3.0

if __name__ == "__main__":
    assert float(f2(1., 2., 'add')) == 3.0
    assert float(f2(1., 2., 'mul')) == 2.0
