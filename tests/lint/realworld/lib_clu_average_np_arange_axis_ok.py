# source: https://github.com/google/CommonLoopUtils/blob/9147399887a0d2d78b90e2ff9da1348c157162a9/clu/metrics.py
#   (clu.metrics.Average after commit 9147399, "Prevent JAX tracer error when jitting
#   functions using Average-based metrics": the axes come from np.arange)
# observed on jax 0.10.2 CPU: Average.from_model_output under jax.jit with a per-example
#   mask of lower rank than the values runs clean; the masked average is 5.0. Only Average is kept,
#   with clu's helpers _assert_same_shape and utils.check_param (clu/internal/utils.py at
#   the same commit) copied in; clu's Metric base class is an empty stand-in (clu is not
#   installed). The jitted call at the end stands in for a jitted eval step.
# gap: omnistaging
from typing import Any, Optional

import flax
import jax
import jax.numpy as jnp
import numpy as np


class Metric:
  # stand-in for clu.metrics.Metric (abstract base: empty/merge/compute)
  pass


def check_param(value, *, ndim=None, dtype=jnp.float32):
  """Raises a `ValueError` if `value` does not match ndim/dtype."""
  if not isinstance(value, (np.ndarray, jnp.ndarray)):
    raise ValueError(f"Expected np.array or jnp.array, got type={type(value)}")
  if ndim is not None and value.ndim != ndim:
    raise ValueError(f"Expected ndim={ndim}, got ndim={value.ndim}")
  if dtype is not None and value.dtype != dtype:
    raise ValueError(f"Expected dtype={dtype}, got dtype={value.dtype}")


def _assert_same_shape(a: jnp.array, b: jnp.array):
  """Raises a `ValueError` if shapes of `a` and `b` don't match."""
  if a.shape != b.shape:
    raise ValueError(f"Expected same shape: {a.shape} != {b.shape}")


@flax.struct.dataclass
class Average(Metric):
  """Computes the average of a scalar or a batch of tensors.

  Supports the following types of masks:

  - A one-dimensional mask with the same leading dimension as the scalars, or,
  - A multi-dimensional mask with the exact same dimensions as the scalars.
    This allows the use of per-example masks for examples in a batch, as well as
    per-target masks for targets for examples in a batch.

  The result is always a scalar.

  See also documentation of `Metric`.
  """

  total: jnp.array
  count: jnp.array

  @classmethod
  def empty(cls) -> Metric:
    return cls(total=jnp.array(0, jnp.float32), count=jnp.array(0, jnp.int32))

  @classmethod
  def from_model_output(cls,
                        values: jnp.array,
                        mask: Optional[jnp.array] = None,
                        **_) -> Metric:
    if values.ndim == 0:
      values = values[None]
    if mask is None:
      mask = jnp.ones_like(values)
    # Leading dimensions of mask and values must match.
    if mask.shape[0] != values.shape[0]:
      raise ValueError(
          f"Argument `mask` must have the same leading dimension as `values`. "
          f"Received mask of dimension {mask.shape} "
          f"and values of dimension {values.shape}.")
    # Broadcast mask to the same number of dimensions as values.
    if mask.ndim < values.ndim:
      mask = jnp.expand_dims(
          mask, axis=tuple(np.arange(mask.ndim, values.ndim)))
    mask = mask.astype(bool)
    check_param(mask, dtype=bool, ndim=values.ndim)
    return cls(
        total=jnp.where(mask, values, jnp.zeros_like(values)).sum(),
        count=jnp.where(mask, jnp.ones_like(values, dtype=jnp.int32),
                        jnp.zeros_like(values, dtype=jnp.int32)).sum(),
    )

  def merge(self, other: "Average") -> "Average":
    _assert_same_shape(self.total, other.total)
    return type(self)(
        total=self.total + other.total,
        count=self.count + other.count,
    )

  def compute(self) -> Any:
    return self.total / self.count


if __name__ == "__main__":
  values = jnp.arange(12.0).reshape(4, 3)
  mask = jnp.array([1, 1, 0, 1])

  @jax.jit
  def eval_step(values, mask):
    return Average.from_model_output(values, mask=mask)

  metric = eval_step(values, mask)
  assert float(metric.compute()) == 5.0, metric.compute()
