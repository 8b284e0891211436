# source: https://github.com/jax-ml/jax/issues/207
# observed on jax 0.10.2 CPU: test_get_jit runs: the fori_loop body may close over the
#   traced `a` (the "No constant handler for type: JaxprTracer" error of the report is
#   long gone). Added: the imports (`np` as jax.numpy, as in JAX code of the time), the
#   `out =` binding of the last call and the assert.
# gap: other
import jax.numpy as np
from jax import jit, lax

def iterate(f, init_row, steps):
  def body_fun(step, result):
    return f(result)
  return lax.fori_loop(0, steps, body_fun, init_row)

def test_get(a,b): return iterate(lambda x: x[a], b, 10)
test_get_jit = jit(test_get)
out = test_get_jit(np.array([0,1,2,3]), np.array([0,1,2,3]))
assert (out == np.array([0, 1, 2, 3])).all()
