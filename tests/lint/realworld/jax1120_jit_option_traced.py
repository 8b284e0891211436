# source: https://github.com/jax-ml/jax/issues/1120 (the python_control_flow half of the
#   description; the lax.cond half, written for the old five-argument cond, left out)
# observed on jax 0.10.2 CPU: the first three calls run; the fourth, which jits
#   python_control_flow and passes option=True to it, raises TracerBoolConversionError at
#   `x**2 if option else x**3` (jit traces the Python bool). Added: imports.
# gap: other
import jax.numpy as np
from jax import jit, vmap

def python_control_flow(x, option=False):
  return x**2 if option else x**3  # expect: JIT101

vmap(python_control_flow)(np.arange(3))  # works
vmap(jit(python_control_flow))(np.arange(3))  # works
vmap(jit(lambda x: python_control_flow(x, True)))(np.arange(3))  # works
(lambda x: jit(python_control_flow)(x, True))(np.arange(3))  # doesn't work
