# source: https://github.com/jax-ml/jax/issues/3084
# observed on jax 0.10.2 CPU: `jit(np.cumsum)(np.arange(5))` raises TypeError (cannot create
#   weak reference to 'numpy._ArrayFunctionDispatcher' object): `np` is NumPy (the report's
#   traceback runs through numpy/core/fromnumeric.py, where NumPy's cumsum was handed the
#   tracer); jit of a NumPy function now fails when it is wrapped. The import is added.
# gap: types
import numpy as np
from jax import jit

jit(np.cumsum)(np.arange(5))  # expect: JIT402
