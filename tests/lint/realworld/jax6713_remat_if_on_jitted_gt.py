# source: https://github.com/jax-ml/jax/issues/6713 (the example in the description)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at `if jax.jit(lax.gt)(x, 0.)`:
#   under grad and remat, x is a tracer. `jax.remat`'s `concrete=True` no longer exists
#   and is dropped (`@jax.remat`), as the maintainer's last comment says it is moot.
# gap: other
from functools import partial
import jax
from jax import lax, jit
import numpy as np

@jax.remat
def g(x):
  if jax.jit(lax.gt)(x, 0.):  # expect: JIT101
    return lax.sin(x), 3.
  else:
    return lax.cos(x), 4.

def f(x):
  x, _ = g(x)
  return x

ans = jax.grad(f)(2.)
expected = np.cos(2.)
np.testing.assert_allclose(ans, expected)
