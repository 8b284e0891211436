# source: https://github.com/jax-ml/jax/issues/377
# observed on jax 0.10.2 CPU: both jitted functions index with the traced `i` (a dynamic
#   gather), `x[i]` and `x[i, :]`, and return row 1, as the thread found ("it seems to work
#   fine, so nevermind"). Added: the numpy import (the snippet uses `np` for the input) and
#   the checks in __main__.
# gap: exemption-vs-JAX
import numpy as np
from jax import jit

@jit
def f(x, i):
  return x[i]

x = np.arange(12).reshape(4, 3)
f(x, 1)

@jit
def g(x, i):
  return x[i, :]

g(x, 1)

if __name__ == "__main__":
    assert np.array_equal(np.asarray(f(x, 1)), [3, 4, 5])
    assert np.array_equal(np.asarray(g(x, 2)), [6, 7, 8])
