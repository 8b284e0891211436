# source: https://github.com/scipy/scipy/pull/22219
# observed on jax 0.10.2 CPU: jax.jit(f)(a) raises TracerBoolConversionError at
#   `return _asarray(a, check_finite=True)`: with the array API enabled, scipy's finiteness
#   check calls `if not xp.all(xp.isfinite(array))` on the traced array (the PR's "After"
#   output; scipy 1.17.1 here). The check needs the values of `a`, which jit does not have.
#   Added: `os.environ["SCIPY_ARRAY_API"] = "1"` before the imports (the array-API mode the
#   PR is about); the `>>>` prompts are removed.
# gap: exemption-vs-JAX
import os
os.environ["SCIPY_ARRAY_API"] = "1"

import jax
import jax.numpy as xp
from scipy._lib._array_api import _asarray
a = xp.asarray([0])
def f(a):
    return _asarray(a, check_finite=True)  # expect: JIT401  # tolerate: JIT402
jax.jit(f)(a)
