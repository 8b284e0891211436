# source: https://github.com/jax-ml/jax/blob/5c41c0a4bcc15877e3ccd5b46758d9c0e9970664/jax/numpy/lax_numpy.py
#   (jnp.linspace before jax#1658, "linspace, logspace, geomspace jittable and
#   differentiable in start and stop args")
# observed on jax 0.10.2 CPU: linspace hands its arguments to NumPy's onp.linspace; under
#   jit with a traced `start` that raises TracerArrayConversionError (a TypeError) at
#   line 25, which the `except TypeError` meant for old NumPy versions catches, and the
#   retry at line 31 raises it again. Added: imports (asarray and moveaxis are
#   jax.numpy's), a no-op stand-in for lax._check_user_dtype_supported (a dtype warning),
#   and the driver in __main__ (eager call, then jit with `num` static).
# gap: exemption-vs-JAX
import numpy as onp

import jax
from jax.numpy import asarray, moveaxis


def _check_user_dtype_supported(dtype, fun_name=None):  # stand-in
  pass


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None,
             axis=0):
  _check_user_dtype_supported(dtype, "linspace")
  try:
    out = onp.linspace(start, stop, num, endpoint, retstep, dtype, axis)  # expect: JIT402
    if retstep:
      return asarray(out[0]), out[1]
    else:
      return asarray(out)
  except TypeError:  # Old versions of onp may lack axis arg.
    out = onp.linspace(start, stop, num, endpoint, retstep, dtype)  # expect: JIT402
    if retstep:
      return moveaxis(asarray(out[0]), 0, axis), out[1]
    else:
      return moveaxis(asarray(out), 0, axis)


if __name__ == "__main__":
    import traceback

    print(linspace(0.0, 1.0, 5))  # eager: fine
    try:
        jax.jit(linspace, static_argnums=(2,))(0.0, 1.0, 5)
    except jax.errors.TracerArrayConversionError as e:
        last = traceback.extract_tb(e.__traceback__)
        first = traceback.extract_tb(e.__context__.__traceback__)
        lines = lambda tb: [f.lineno for f in tb if f.filename == __file__]
        # observed: line 25 raises TracerArrayConversionError, caught by the except
        assert isinstance(e.__context__, jax.errors.TracerArrayConversionError)
        assert lines(first)[-1] == 25, lines(first)
        # observed: line 31 raises it again
        assert lines(last)[-1] == 31, lines(last)
    else:
        raise AssertionError("expected TracerArrayConversionError")
