# source: https://github.com/google-research/t5x/blob/2e94f51f12238823da8ce695ce5a490daecc23cc/t5x/metrics.py
#   (set_step_metrics_num_steps before commit 465dc34, "Do not jit set_step_metrics_num_steps
#   to avoid deadlocking when concurrent_metrics=True", which drops the @jax.jit)
# observed on jax 0.10.2 CPU: every call of set_step_metrics_num_steps (MetricsManager's
#   write_metrics_summary calls it once per summary, on metrics fetched to the host) jits a
#   new local `fn`, so every call traces and compiles again: 3 later calls with the same
#   metrics and num_steps, 3 more compilations. Kept from metrics.py: Step, AveragePerStep,
#   is_metric_obj and set_step_metrics_num_steps; clu is not installed, so
#   `clu_metrics.Metric` is a minimal stand-in base class; from_model_output's docstring is
#   left out, and `jax.tree_map` (removed) is spelled `jax.tree_util.tree_map`.
# gap: per-call-recompile
import types
from typing import Optional, Union

import flax  # Only used for flax.struct.dataclass.
import jax
import jax.numpy as jnp
import numpy as np


class _Metric:
  # stand-in for clu.metrics.Metric
  pass


clu_metrics = types.SimpleNamespace(Metric=_Metric)
Scalar = Union[int, float, np.number, np.ndarray, jnp.ndarray]


@flax.struct.dataclass
class Step(clu_metrics.Metric):
  """Abstract class representing a per-step or step-per metric.

  Tracks number of steps. Must be set manually using replace_steps, since the
  use of microbatches may otherwise cause the computation to be incorrect.

  See also documentation of `Metric`.
  """
  steps: Optional[int] = 1

  def replace_steps(self, steps) -> "Step":
    return self.replace(steps=steps)

  def compute(self) -> Scalar:
    if self.steps is None:
      raise ValueError(
          "`steps` must be set by calling `replace_steps` before computing metric."
      )
    return self.steps


@flax.struct.dataclass
class AveragePerStep(Step):
  """Represents per-step average (total divided by number of steps).

  See also documentation of `Step`.
  """
  total: Optional[Scalar] = None

  @classmethod
  def from_model_output(cls,
                        values: Scalar,
                        steps: Optional[int] = 1,
                        **_) -> clu_metrics.Metric:
    values = jnp.asarray(values)
    if values.ndim == 0:
      values = values[None]
    return cls(total=values.sum(), steps=steps)

  def merge(self, other: "AveragePerStep") -> "AveragePerStep":
    assert type(self) is type(other)
    return type(self)(
        total=self.total + other.total, steps=self.steps + other.steps)

  def compute(self) -> Scalar:
    steps = super().compute()
    if self.total is None:
      raise ValueError("`AveragePerStep` `total` cannot be None.")
    return self.total / steps


def is_metric_obj(obj):
  return isinstance(obj, clu_metrics.Metric)


def set_step_metrics_num_steps(metrics, num_steps):
  """Sets steps for Step objects in metrics pytree."""

  @jax.jit  # expect: JIT301
  def fn(o):
    if isinstance(o, Step):
      return o.replace_steps(num_steps)
    else:
      return o

  return jax.tree_util.tree_map(fn, metrics, is_leaf=is_metric_obj)


if __name__ == "__main__":
  import jax.monitoring

  compiles = []
  jax.monitoring.register_event_duration_secs_listener(
      lambda event, _secs, **_kw: compiles.append(event)
      if event == "/jax/core/compile/backend_compile_duration" else None
  )
  # metrics as write_metrics_summary has them: fetched to the host with jax.device_get
  fetched_metrics = jax.device_get(
      {"loss": AveragePerStep.from_model_output(jnp.array([1.0, 2.0, 3.0]))})
  set_step_metrics_num_steps(fetched_metrics, 100)
  before = len(compiles)
  for _ in range(3):
    final_metrics = set_step_metrics_num_steps(fetched_metrics, 100)
  print(final_metrics["loss"].compute())
  # observed: line 89 compiles again on each of the 3 later calls
  assert len(compiles) - before >= 3, compiles
