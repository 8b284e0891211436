# source: https://github.com/google/flax/blob/5ab9d1463550a7fc7fe13575af55081e68258dd7/flax/nnx/training/metrics.py
#   (MultiMetric before pull request #5489, "fix MultiMetric GraphDef not hashable under
#   jit", which stores _metric_names as a tuple)
# observed on jax 0.10.2 CPU: calling update_metric with the graphdef of nnx.split(metrics)
#   as a static argument raises "Non-hashable static arguments are not supported ...
#   TypeError: unhashable type: 'list'": the list _metric_names is a static attribute of
#   the GraphDef. Only MultiMetric is kept, subclassing the installed nnx.Metric; its long
#   doctest docstring is left out. The driver is the test the pull request adds
#   (tests/nnx/metrics_test.py, test_multimetric_split_merge_under_jit, with jax.jit).
# gap: static-hashability
from functools import partial
import typing as tp

import jax
import jax.numpy as jnp
from flax import nnx
from flax.nnx.training.metrics import Metric


class MultiMetric(Metric):
  """MultiMetric class to store multiple metrics and update them in a single call."""

  def __init__(self, **metrics):
    """Pass in key-word arguments to the constructor, e.g.
    ``MultiMetric(keyword1=Average(), keyword2=Accuracy(), ...)``.

    Args:
      **metrics: the key-word arguments that will be used to access
        the corresponding ``Metric``.
    """
    # TODO: raise error if a kwarg is passed that is in ('reset', 'update', 'compute'), since these names are reserved for methods
    self._metric_names = []
    for metric_name, metric in metrics.items():
      self._metric_names.append(metric_name)
      setattr(self, metric_name, metric)

  def reset(self) -> None:
    """Reset all underlying ``Metric``'s."""
    for metric_name in self._metric_names:
      getattr(self, metric_name).reset()

  def update(self, **updates) -> None:
    """In-place update all underlying ``Metric``'s in this ``MultiMetric``."""
    # TODO: should we give the option of updating only some of the metrics and not all? e.g. if for some kwargs==None, don't do update
    # TODO: should we raise an error if a kwarg is passed into **updates that has no match with any underlying metric? e.g. user typo
    mask = updates.pop("mask", None)
    for metric_name in self._metric_names:
      metric_mask_kwarg = {}
      metric_mask = mask.get(metric_name, None) if isinstance(mask, dict) else mask
      if metric_mask is not None:
        metric_mask_kwarg = {"mask": metric_mask}
      getattr(self, metric_name).update(**(updates | metric_mask_kwarg))

  def compute(self) -> dict[str, tp.Any]:
    """Compute and return the value of all underlying ``Metric``'s."""
    return {
        f'{metric_name}': getattr(self, metric_name).compute()
        for metric_name in self._metric_names
    }


if __name__ == "__main__":
  metrics = MultiMetric(
      loss=nnx.metrics.Average('loss'),
      accuracy=nnx.metrics.Average('accuracy'),
  )
  graphdef, state = nnx.split(metrics)

  @partial(jax.jit, static_argnames=('graphdef',))
  def update_metric(graphdef, state, loss_value, accuracy_value):
    metrics = nnx.merge(graphdef, state)
    metrics.update(loss=loss_value, accuracy=accuracy_value)
    _, new_state = nnx.split(metrics)
    return new_state

  new_state = update_metric(  # expect: JIT302
      graphdef, state, jnp.array(2.0), jnp.array(0.8)
  )
  metrics = nnx.merge(graphdef, new_state)
  values = metrics.compute()
