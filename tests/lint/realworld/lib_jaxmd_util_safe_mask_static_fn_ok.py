# source: https://github.com/jax-md/jax-md/blob/a722def5f2c30bd9dceb5fcc5c2a8d19f3cba2b6/jax_md/util.py
#   (the module verbatim but for its license header)
# observed on jax 0.10.2 CPU: runs clean. safe_mask is jitted with the function it applies
#   as a static argument: two calls with the same function (jnp.sqrt) and new data share
#   one compilation (the function object is the cache key), and its double jnp.where
#   keeps the gradient at masked points at 0 where plain jnp.sqrt gives inf.
#   high_precision_sum, called in traced code with a literal axis, and safe_norm and
#   normalize run under jit. static_cast, which the module notes "cannot be jit", is only
#   called outside jit. Added: the __main__ block.
# gap: static-hashability
"""Defines utility functions."""

from typing import Iterable, Sequence, Union, Optional, Any

from typing_extensions import TypeIs

import jax
from jax.tree_util import register_pytree_node
import jax.numpy as jnp
from jax import jit

from functools import partial

import numpy as onp

from jax.extend.backend import get_backend

Array = jnp.ndarray
# Accepted for array inputs: jax/numpy arrays and python scalars.
ArrayLike = jax.typing.ArrayLike
PyTree = Any

i16 = jnp.int16
i32 = jnp.int32
i64 = jnp.int64

f32 = jnp.float32
f64 = jnp.float64


CUSTOM_SIMULATION_TYPE = []


def register_custom_simulation_type(t: Any):
  global CUSTOM_SIMULATION_TYPE
  CUSTOM_SIMULATION_TYPE += [t]


def check_custom_simulation_type(x: Any) -> None:
  if type(x) in CUSTOM_SIMULATION_TYPE:
    raise ValueError()


def static_cast(*xs):
  """Function to cast a value to the lowest dtype that can express it."""
  # NOTE(schsam): static_cast is so named because it cannot be jit.
  if get_backend().platform == 'tpu':
    return (jnp.array(x, jnp.float32) for x in xs)
  else:
    return (jnp.array(x, dtype=onp.min_scalar_type(x)) for x in xs)


def register_pytree_namedtuple(cls):
  register_pytree_node(
    cls, lambda xs: (tuple(xs), None), lambda _, xs: cls(*xs)
  )


def merge_dicts(a, b, ignore_unused_parameters=False):
  if not ignore_unused_parameters:
    return {**a, **b}

  merged = dict(a)
  for key in merged.keys():
    b_val = b.get(key)
    if b_val is not None:
      merged[key] = b_val
  return merged


@partial(jit, static_argnums=(1,))
def safe_mask(mask, fn, operand, placeholder=0):
  masked = jnp.where(mask, operand, 0)
  return jnp.where(mask, fn(masked), placeholder)


def high_precision_sum(
  X: Array,
  axis: Union[Sequence[int], int] | None = None,
  keepdims: bool = False,
):
  """Sums over axes at 64-bit precision then casts back to original dtype."""
  if jnp.issubdtype(X.dtype, jnp.integer):
    dtyp = jnp.int64
  elif jnp.issubdtype(X.dtype, jnp.complexfloating):
    dtyp = jnp.complex128
  else:
    dtyp = jnp.float64

  return jnp.array(
    jnp.sum(X, axis=axis, dtype=dtyp, keepdims=keepdims), dtype=X.dtype
  )


def maybe_downcast(x):
  if isinstance(x, jnp.ndarray) and x.dtype is jnp.dtype('float64'):
    return x
  return jnp.array(x, f32)


def x64_enabled() -> bool:
  """Whether JAX x64 mode is currently active.

  Probes dtype canonicalization instead of reading the dynamic
  `jax.config.jax_enable_x64` attribute, which static checkers can't see.
  """
  return bool(jax.dtypes.canonicalize_dtype(jnp.float64) == jnp.float64)


def is_array(x: Any) -> TypeIs[Array | onp.ndarray[Any, Any]]:
  return isinstance(x, (jnp.ndarray, onp.ndarray))


def safe_norm(
  x: Array, axis: int = -1, epsilon: float = 1e-6, keepdims: bool = False
) -> Array:
  """Compute norm with numerical safety for gradients.

  Args:
      x: Input array.
      axis: Axis along which to compute norm.
      epsilon: Small value to avoid division by zero.
      keepdims: Whether to keep reduced dimensions.

  Returns:
      Norm of x with lower bound at epsilon.
  """
  norm = jnp.sqrt(jnp.sum(x**2, axis=axis, keepdims=keepdims))
  return jnp.maximum(norm, epsilon)


def safe_arccos(x: Array, epsilon: float = 1e-6) -> Array:
  """Compute arccos with clipping to avoid domain errors.

  Args:
      x: Input array (should be in [-1, 1]).
      epsilon: Safety margin for clipping.

  Returns:
      arccos(x) with input clipped to valid domain.
  """
  x = jnp.clip(x, -1.0 + epsilon, 1.0 - epsilon)
  return jnp.arccos(x)


def normalize(x: Array, axis: int = -1, epsilon: float = 1e-6) -> Array:
  """Normalize vector with numerical safety.

  Args:
      x: Input array.
      axis: Axis along which to normalize.
      epsilon: Small value to avoid division by zero.

  Returns:
      Normalized vector.
  """
  norm = safe_norm(x, axis=axis, epsilon=epsilon, keepdims=True)
  return x / norm


if __name__ == "__main__":
  compiles = []
  jax.monitoring.register_event_duration_secs_listener(
      lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
      if event == "/jax/core/compile/backend_compile_duration" else None
  )

  r = jnp.array([0.0, 1.0, 4.0])

  def energy(r):
    return jnp.sum(safe_mask(r > 0, jnp.sqrt, r))

  g = jax.grad(energy)(r)
  assert jnp.all(jnp.isfinite(g)) and g[0] == 0.0, g
  assert not jnp.isfinite(jax.grad(lambda r: jnp.sum(jnp.sqrt(r)))(r)[0])
  compiles.clear()
  safe_mask(r > 1, jnp.sqrt, r)
  safe_mask(r > 2, jnp.sqrt, 2 * r)
  assert compiles.count("jit(safe_mask)") == 1, compiles  # same static fn: reused

  @jax.jit
  def stats(X):
    return high_precision_sum(X, axis=0), normalize(X), safe_norm(X)

  X = jnp.arange(12.0).reshape(4, 3)
  total, unit, norms = stats(X)
  assert jnp.allclose(total, X.sum(axis=0))
  assert jnp.allclose(jnp.linalg.norm(unit, axis=-1), 1.0, atol=1e-5)
  print(g, total, list(static_cast(3, 2.5)))
