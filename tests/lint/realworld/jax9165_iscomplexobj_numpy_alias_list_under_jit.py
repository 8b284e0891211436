# source: https://github.com/jax-ml/jax/issues/9165 (jakevdp's 2022-06-08 reproducer), with
#   jnp.iscomplexobj as jax defined it before the fix in https://github.com/jax-ml/jax/pull/11581
#   (jax/_src/numpy/lax_numpy.py at 8a67734e7b073445d475ba27dcc74be1ba728100, line 135:
#   `iscomplexobj = np.iscomplexobj`)
# observed on jax 0.10.2 CPU: f([1]) raises TracerArrayConversionError: under jit the list
#   holds a tracer, it has no .dtype, and NumPy's iscomplexobj falls back to
#   np.asarray(x), which calls __array__ on the tracer. `jnp.iscomplexobj` of the report is
#   spelled with the library's definition of the time; added: the imports.
# gap: types
import jax
import numpy as np

iscomplexobj = np.iscomplexobj

@jax.jit
def f(x):
  return iscomplexobj(x)  # expect: JIT402

f([1])
