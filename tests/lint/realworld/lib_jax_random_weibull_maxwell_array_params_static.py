# source: https://github.com/jax-ml/jax/blob/bea4515a1331b2bd0d20f673936cde860ab040f3/jax/_src/random.py
#   (jax.random.double_sided_maxwell and weibull_min before jax#6428, "Make Weibull, Maxwell
#   sampling parameters nonstatic: these parameters cannot be static since numpy arrays are
#   not hashable")
# observed on jax 0.10.2 CPU: the jitted helpers mark loc/scale and scale/concentration as
#   static, so calling the samplers with array parameters raises "ValueError:
#   Non-hashable static arguments are not supported" at the helper calls (lines 47 and 76).
#   Docstrings are left out. Stand-ins: jax.dtypes' canonicalize_dtype and jnp.issubdtype
#   for jax._src.dtypes, tuple() for core.canonicalize_shape, jnp.float32 for the default
#   dtypes.float_ (float32 without x64); split/maxwell/rademacher/uniform are
#   jax.random's. The driver in __main__ samples with array parameters.
# gap: static-hashability
from functools import partial
from typing import Any, Sequence

import numpy as np

import jax
from jax import jit, lax
from jax import numpy as jnp
from jax.random import maxwell, rademacher, split, uniform

RealArray = Any
DTypeLikeFloat = Any


class dtypes:  # stand-in for jax._src.dtypes
  float_ = jnp.float32
  issubdtype = staticmethod(jnp.issubdtype)
  canonicalize_dtype = staticmethod(jax.dtypes.canonicalize_dtype)


class core:  # stand-in for jax.core
  canonicalize_shape = staticmethod(tuple)


def double_sided_maxwell(key: jnp.ndarray,
                         loc: RealArray,
                         scale: RealArray,
                         shape: Sequence[int] = (),
                         dtype: DTypeLikeFloat = dtypes.float_) -> jnp.ndarray:
  if not dtypes.issubdtype(dtype, np.floating):
    raise ValueError(f"dtype argument to `double_sided_maxwell` must be a float"
                     f" dtype, got {dtype}")
  dtype = dtypes.canonicalize_dtype(dtype)
  shape = core.canonicalize_shape(shape)
  return _double_sided_maxwell(key, loc, scale, shape, dtype)  # expect: JIT302


@partial(jit, static_argnums=(1, 2, 3, 4))
def _double_sided_maxwell(key, loc, scale, shape, dtype):
  params_shapes = lax.broadcast_shapes(np.shape(loc), np.shape(scale))
  if not shape:
    shape = params_shapes

  shape = shape + params_shapes
  maxwell_key, rademacher_key = split(key)
  maxwell_rvs = maxwell(maxwell_key, shape=shape, dtype=dtype)
  # Generate random signs for the symmetric variates.
  random_sign = rademacher(rademacher_key, shape=shape, dtype=dtype)
  assert random_sign.shape == maxwell_rvs.shape

  return random_sign * maxwell_rvs * scale + loc


def weibull_min(key: jnp.ndarray,
                scale: RealArray,
                concentration: RealArray,
                shape: Sequence[int] = (),
                dtype: DTypeLikeFloat = dtypes.float_) -> jnp.ndarray:
  if not dtypes.issubdtype(dtype, np.floating):
    raise ValueError(f"dtype argument to `weibull_min` must be a float "
                     f"dtype, got {dtype}")
  dtype = dtypes.canonicalize_dtype(dtype)
  shape = core.canonicalize_shape(shape)
  return _weibull_min(key, scale, concentration, shape, dtype)  # expect: JIT302


@partial(jit, static_argnums=(1, 2, 3, 4))
def _weibull_min(key, scale, concentration, shape, dtype):
  random_uniform = uniform(
      key=key, shape=shape, minval=0, maxval=1, dtype=dtype)

  # Inverse weibull CDF.
  return jnp.power(-jnp.log1p(-random_uniform), 1.0/concentration) * scale


if __name__ == "__main__":
    import traceback

    def raising_line(thunk):
        try:
            thunk()
        except ValueError as e:
            assert "Non-hashable static arguments" in str(e), e
            tb = traceback.extract_tb(e.__traceback__)
            return [f.lineno for f in tb if f.filename == __file__][-1]
        raise AssertionError("expected ValueError")

    key1, key2 = split(jax.random.PRNGKey(0))
    # observed: line 47 raises "Non-hashable static arguments" for array loc/scale
    assert raising_line(lambda: double_sided_maxwell(
        key1, jnp.zeros(3), jnp.ones(3), (2, 3))) == 47
    # observed: line 76 raises it for array scale/concentration
    assert raising_line(lambda: weibull_min(
        key2, jnp.ones(3), jnp.array([0.5, 1.0, 2.0]), (3,))) == 76
