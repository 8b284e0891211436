# source: https://github.com/google/flax/blob/a72c42ce7987372e7ae0a6134bc2b4b9d55684e6/examples/imagenet/train.py
#   (sync_batch_stats before commit 266052c "Don't recompile `pmap(pmean)` every time the
#   batch statistics are synced")
# observed on jax 0.10.2 CPU (flax 0.12.8): every call of sync_batch_stats builds a new
#   jax.pmap of a new lambda, so every sync compiles again (three syncs of the same
#   statistics, three compiles). Added: imports, a stand-in TrainState holding only
#   model_state (the example's dataclass has more fields), and the __main__ block.
# gap: per-call-recompile
from typing import Any

import flax
import jax
from jax import lax
import jax.numpy as jnp


@flax.struct.dataclass
class TrainState:
  model_state: Any


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
    # observed: line 27 builds a new pmap per call: each of three more syncs compiles again
    assert len(compiles) - before >= 3, compiles
