# source: https://github.com/jax-ml/jax/issues/4645
# observed on jax 0.10.2 CPU: each call of take_action defines and jits a new
#   _take_action, so every call compiles again. The reporter's class and network are not
#   shown; a stax Dense layer and the smallest class around the method stand in.
# gap: per-call-recompile
import jax
import jax.numpy as jnp
from jax import jit, random
from jax.example_libraries import stax


class Agent:
  def __init__(self):
    init_fn, self.net_apply = stax.Dense(4)
    _, self.params = init_fn(random.PRNGKey(0), (1, 3))

  def take_action(self, obs):
      @jit  # expect: JIT301
      def _take_action(params, obs):
          logits = self.net_apply(params, obs)
          softm_logits = stax.softmax(logits.flatten())
          sorted_logits = jnp.sort(softm_logits)
          conf = sorted_logits[-1] - sorted_logits[-2]
          action = jnp.argmax(logits)
          return logits,action,conf

      return _take_action(self.params, obs)


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    agent = Agent()
    obs = jnp.ones((1, 3))
    agent.take_action(obs)
    before = len(compiles)
    for _ in range(3):
        agent.take_action(obs)
    # observed: line 18 compiles again on each of the 3 later calls
    assert len(compiles) - before >= 3, compiles
