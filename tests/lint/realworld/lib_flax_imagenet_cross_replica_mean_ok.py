# source: https://github.com/google/flax/blob/266052cb82ee2e687c34f5d183343c6614c71884/examples/imagenet/train.py
#   (cross_replica_mean and sync_batch_stats after commit 266052c "Don't recompile
#   `pmap(pmean)` every time the batch statistics are synced")
# observed on jax 0.10.2 CPU (flax 0.12.8): runs clean; the pmap is built once at module
#   level, and once the statistics live where pmap puts them (after the second sync) later
#   syncs compile nothing. Added: imports, a stand-in
#   TrainState holding only model_state, and the __main__ block.
# gap: per-call-recompile
from typing import Any

import flax
import jax
from jax import lax
import jax.numpy as jnp


@flax.struct.dataclass
class TrainState:
  model_state: Any


# pmean only works inside pmap because it needs an axis name.
# This function will average the inputs across all devices.
cross_replica_mean = jax.pmap(lambda x: lax.pmean(x, 'x'), 'x')


def sync_batch_stats(state):
  """Sync the batch statistics across replicas."""

  # Each device has its own version of the running average batch statistics and
  # we sync them before evaluation.
  new_model_state = state.model_state.copy({
      'batch_stats': cross_replica_mean(state.model_state['batch_stats'])})
  return state.replace(model_state=new_model_state)


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    n = jax.local_device_count()
    state = TrainState(model_state=flax.core.FrozenDict(
        {'batch_stats': {'mean': jnp.ones((n, 4)), 'var': jnp.ones((n, 4))}}))
    state = sync_batch_stats(state)
    state = sync_batch_stats(state)  # the first output's placement differs from the input's
    before = len(compiles)
    for _ in range(3):
        state = sync_batch_stats(state)
    assert len(compiles) == before, compiles
