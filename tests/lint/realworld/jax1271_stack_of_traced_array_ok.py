# source: https://github.com/jax-ml/jax/issues/1271
# observed on jax 0.10.2 CPU: runs clean. In the report `np.stack(x)` of a traced array
#   raised "Abstract value passed to `bool`" from an `if not arrays` check inside
#   jax.numpy.stack; the fix (#1299) checks `len(arrays) == 0` instead, and stacking the
#   rows of a traced array works under jit.
#   Added: imports and the assertion on the result.
# gap: exemption-vs-JAX
import jax
import jax.numpy as np


@jax.jit
def foo(x):
  return np.stack(x)

out = foo(np.zeros(2))  # this fails
assert out.shape == (2,)
