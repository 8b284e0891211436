# source: https://github.com/jax-ml/jax/issues/3391
# observed on jax 0.10.2 CPU: `f(...)` raises TracerArrayConversionError: jnp.reshape of a
#   NumPy array still returns a NumPy array (intended, per the thread), so indexing it with
#   the traced `x` hands the tracer to NumPy. The report's call `f(np.ones((),np.int32))`
#   names `np`, which the snippet never imports; it is spelled `onp` here.
# gap: types
import numpy as onp
import jax.numpy as jnp
from jax import jit
@jit
def f(x):
  jnp.reshape(onp.zeros([10]), [2, 5])[:, x]  # expect: JIT402
f(onp.ones((),onp.int32))
