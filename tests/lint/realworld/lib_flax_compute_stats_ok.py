# source: https://github.com/google/flax/blob/v0.12.8/flax/linen/normalization.py
#   (_canonicalize_axes, _abs_sq and _compute_stats, flax 0.12.8 as released; the long
#   docstring of _compute_stats shortened)
# observed on jax 0.10.2 CPU: runs clean under jit with and without a mask: every branch is
#   on static facts (None checks, isinstance, jnp.iscomplexobj, Python flags).
# gap: types
from collections.abc import Iterable
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

Array = Any
Axes = Any
Dtype = Any


def _canonicalize_axes(rank: int, axes: Axes) -> tuple[int, ...]:
  """Returns a tuple of deduplicated, sorted, and positive axes."""
  if not isinstance(axes, Iterable):
    axes = (axes,)
  return tuple({rank + axis if axis < 0 else axis for axis in axes})


def _abs_sq(x):
  """Computes the elementwise square of the absolute value |x|^2."""
  if jnp.iscomplexobj(x):
    return lax.square(lax.real(x)) + lax.square(lax.imag(x))
  else:
    return lax.square(x)


def _compute_stats(
    x: Array,
    axes: Axes,
    dtype: Dtype | None,
    axis_name: str | None = None,
    axis_index_groups: Any = None,
    use_mean: bool = True,
    use_fast_variance: bool = True,
    mask: Array | None = None,
    force_float32_reductions=True,
):
  """Computes mean and variance statistics."""
  # promote x to at least float32, this avoids half precision computation
  # but preserves double or complex floating points
  if force_float32_reductions:
    dtype = jnp.promote_types(dtype, jnp.float32)
  if isinstance(x, jax.Array):
    x = x.astype(dtype)
  else:
    x = jnp.asarray(x, dtype)
  axes = _canonicalize_axes(x.ndim, axes)

  def maybe_distributed_mean(*xs, mask=None):
    if mask is not None:
      mask = jnp.asarray(mask, dtype=bool)
    mus = tuple(x.mean(axes, where=mask) for x in xs)
    if axis_name is None:
      return mus if len(xs) > 1 else mus[0]
    else:
      # In the distributed case we stack multiple arrays to speed comms.
      if len(xs) > 1:
        reduced_mus = lax.pmean(
          jnp.stack(mus, axis=0),
          axis_name,
          axis_index_groups=axis_index_groups,
        )
        return tuple(reduced_mus[i] for i in range(len(xs)))
      else:
        return lax.pmean(mus[0], axis_name, axis_index_groups=axis_index_groups)

  if use_mean:
    if use_fast_variance:
      mu, mu2 = maybe_distributed_mean(x, _abs_sq(x), mask=mask)
      # mean2 - _abs_sq(mean) is not guaranteed to be non-negative due
      # to floating point round-off errors.
      var = jnp.maximum(0.0, mu2 - _abs_sq(mu))
    else:
      mu = maybe_distributed_mean(x, mask=mask)
      var = maybe_distributed_mean(
        _abs_sq(x - jnp.expand_dims(mu, axes)), mask=mask
      )
  else:
    var = maybe_distributed_mean(_abs_sq(x), mask=mask)
    mu = jnp.zeros_like(var)
  return mu, var



if __name__ == "__main__":
    x = jnp.arange(12.0).reshape(3, 4)
    print(jax.jit(_compute_stats, static_argnums=(1, 2))(x, -1, None))
    mask = x > 3
    stats = jax.jit(lambda x, m: _compute_stats(x, (0, 1), None, mask=m, use_fast_variance=False))
    print(stats(x, mask))
    print(jax.jit(lambda x: _compute_stats(x, 0, jnp.float16, use_mean=False))(x + 1j))
