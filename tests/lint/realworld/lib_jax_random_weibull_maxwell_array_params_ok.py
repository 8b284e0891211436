# source: https://github.com/jax-ml/jax/blob/e827345202cc503d101d50e2feb97d498b21fc1e/jax/_src/random.py
#   (jax.random.double_sided_maxwell and weibull_min after "Make Weibull, Maxwell sampling
#   parameters nonstatic", jax#6428: only `shape` and `dtype` stay static)
# observed on jax 0.10.2 CPU: both samplers run clean with array parameters, each jitted
#   helper compiling once per shape/dtype. Docstrings are left out. Stand-ins: jax.dtypes'
#   canonicalize_dtype and jnp.issubdtype for jax._src.dtypes, tuple() for
#   core.canonicalize_shape, jnp.float32 for the default dtypes.float_ (float32 without
#   x64); split/maxwell/rademacher/uniform are jax.random's. The driver in __main__ samples
#   with array parameters, twice with new values.
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
  return _double_sided_maxwell(key, loc, scale, shape, dtype)


@partial(jit, static_argnums=(3, 4))
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
  return _weibull_min(key, scale, concentration, shape, dtype)


@partial(jit, static_argnums=(3, 4))
def _weibull_min(key, scale, concentration, shape, dtype):
  random_uniform = uniform(
      key=key, shape=shape, minval=0, maxval=1, dtype=dtype)

  # Inverse weibull CDF.
  return jnp.power(-jnp.log1p(-random_uniform), 1.0/concentration) * scale


if __name__ == "__main__":
    keys = split(jax.random.PRNGKey(0), 4)
    a = double_sided_maxwell(keys[0], jnp.zeros(3), jnp.ones(3), (2, 3))
    b = double_sided_maxwell(keys[1], jnp.ones(3), 2 * jnp.ones(3), (2, 3))
    c = weibull_min(keys[2], jnp.ones(3), jnp.array([0.5, 1.0, 2.0]), (3,))
    d = weibull_min(keys[3], 2 * jnp.ones(3), jnp.array([1.5, 1.0, 2.0]), (3,))
    assert a.shape == b.shape == (2, 3, 3) and c.shape == d.shape == (3,)
    assert bool(jnp.all(c > 0)) and bool(jnp.all(d > 0))
    assert _double_sided_maxwell._cache_size() == 1
    assert _weibull_min._cache_size() == 1
