# source: https://github.com/jax-ml/jax/issues/2720
# observed on jax 0.10.2 CPU: both calls run; `if x_in is None` is decided while tracing
#   because None is an empty pytree, so h(a, None) is a second trace with a different
#   argument structure, not a branch on a traced value (the thread closed it as working
#   as intended). Added: the imports (`np` is NumPy, `jax` for jax.jit).
# gap: exemption-vs-JAX
import jax
import jax.lax as lax
import numpy as np

def f(logits, x_in):
  if x_in is None:
    return logits
  else:
    return logits + x_in

h = jax.jit(f)
a = np.random.randn(10).astype("float32").reshape([1, -1])
print(h(a, 1.0))
print(h(a, None))
