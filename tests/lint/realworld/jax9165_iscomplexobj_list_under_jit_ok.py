# source: https://github.com/jax-ml/jax/issues/9165 (jakevdp's 2022-06-08 reproducer), with
#   jnp.iscomplexobj as the fix in https://github.com/jax-ml/jax/pull/11581 defines it
#   (jax/_src/numpy/lax_numpy.py at 4a693400b97724c7be73436f9add3779909eb5c5)
# observed on jax 0.10.2 CPU: runs clean: f([1]) is False and f([1 + 1j]) is True under jit:
#   a list has no .dtype, so the function falls back to jnp.asarray, which accepts tracers.
#   The function's `@_wraps(np.iscomplexobj)` docstring decorator is left out, and
#   asarray, issubdtype and complexfloating are jax.numpy's; added: the imports and the
#   checks in __main__.
# gap: types
import jax
import jax.numpy as jnp
from jax.numpy import asarray, issubdtype, complexfloating

def iscomplexobj(x):
  try:
    typ = x.dtype.type
  except AttributeError:
    typ = asarray(x).dtype.type
  return issubdtype(typ, complexfloating)

@jax.jit
def f(x):
  return iscomplexobj(x)

if __name__ == "__main__":
  assert not bool(f([1]))
  assert bool(f([1 + 1j]))
  assert not bool(f(jnp.arange(2)))
  assert bool(f(jnp.ones(2, dtype=jnp.complex64)))
