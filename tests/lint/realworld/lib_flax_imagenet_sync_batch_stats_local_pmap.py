# source: https://github.com/google/flax/blob/a72c42ce7987372e7ae0a6134bc2b4b9d55684e6/examples/imagenet/train.py
#   (sync_batch_stats before "Don't recompile `pmap(pmean)` every time the batch
#   statistics are synced", 266052cb)
# observed on jax 0.10.2 CPU with flax 0.12.8: every call of sync_batch_stats pmaps a new
#   lambda, so every call compiles the pmean again. Added: the imports, the __main__ block
#   and TrainState's definition from the same file with the removed flax.optim types
#   (Optimizer, DynamicScale) annotated as Any; the batch statistics are a stand-in.
# gap: per-call-recompile
from typing import Any

import flax
import jax
from jax import lax
import jax.numpy as jnp


@flax.struct.dataclass
class TrainState:
  step: int
  optimizer: Any
  model_state: Any
  dynamic_scale: Any


def sync_batch_stats(state):
  """Sync the batch statistics across replicas."""
  # An axis_name is passed to pmap which can then be used by pmean.
  # In this case each device has its own version of the batch statistics and
  # we average them.
  avg = jax.pmap(lambda x: lax.pmean(x, 'x'), 'x')  # expect: JIT301

  new_model_state = state.model_state.copy({
      'batch_stats': avg(state.model_state['batch_stats'])})
  return state.replace(model_state=new_model_state)


if __name__ == "__main__":
  import jax.monitoring
  from flax.core import FrozenDict

  compiles = []
  jax.monitoring.register_event_duration_secs_listener(
      lambda event, _secs, **_kw: compiles.append(event)
      if event == "/jax/core/compile/backend_compile_duration" else None
  )
  n = jax.local_device_count()
  state = TrainState(
      step=0, optimizer=None, dynamic_scale=None,
      model_state=FrozenDict({'batch_stats': {'mean': jnp.ones((n, 3))}}))
  state = sync_batch_stats(state)  # tolerate: JIT301
  state = sync_batch_stats(state)  # tolerate: JIT301
  before = len(compiles)
  for _ in range(3):
    state = sync_batch_stats(state)  # tolerate: JIT301
  # observed: line 30 pmaps a new lambda, compiled again on each of the 3 later calls
  assert len(compiles) - before >= 3, compiles
