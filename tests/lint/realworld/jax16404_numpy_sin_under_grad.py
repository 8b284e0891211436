# source: https://github.com/jax-ml/jax/pull/16404 (the example in the description)
# observed on jax 0.10.2 CPU: TracerArrayConversionError at `np.sin(x)`: NumPy's sin asks for
#   the value of the JVP tracer that jax.grad passes in (no jit involved).
# gap: exemption-vs-JAX
import jax
import numpy as np

@jax.grad
def sum_sin(x):
  return np.sin(x).sum()  # expect: JIT402

sum_sin(np.random.randn(10, 10))
