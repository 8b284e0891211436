# source: https://github.com/google-deepmind/acme/blob/9950462b6550a009fe2ea852702edb5ca8df2377/acme/agents/jax/impala/agent_test.py
#   (MyNetwork and the forward/initial-state functions of the IMPALA test before commit
#   1c1865ac "Use original numpy, rather than jax.numpy, for shape computations ... (In the
#   near future this will become an error.)", which writes np.prod(x.shape))
# observed on jax 0.10.2 CPU: the jitted apply raises TypeError (shapes must be concrete) at
#   the torso's `jnp.reshape(x, [jnp.prod(x.shape)])`: under jit jnp.prod of the static shape
#   is a tracer. Kept verbatim: MyNetwork, forward_fn and initial_state_fn; PolicyValueHead
#   is copied from acme/jax/networks/policy_value.py at the same commit (acme is not
#   installed). The agent's `jax.jit(hk.transform(forward_fn).apply, backend='cpu')` is
#   spelled `jax.jit(hk.without_apply_rng(hk.transform(forward_fn)).apply)` (haiku's apply
#   now takes an rng; jit's backend= is gone), and `jnp.prod(x.shape)` is spelled
#   `jnp.prod(jnp.asarray(x.shape))` (jnp.prod no longer takes a tuple); the environment
#   spec is replaced by its values (5 actions, observations of shape (10, 5)).
# gap: omnistaging
from typing import Optional, Tuple

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np


class PolicyValueHead(hk.Module):
  """A network with two linear layers, for policy and value respectively."""

  def __init__(self, num_actions: int):
    super().__init__(name='policy_value_network')
    self._policy_layer = hk.Linear(num_actions)
    self._value_layer = hk.Linear(1)

  def __call__(self, inputs: jnp.ndarray) -> Tuple[jnp.ndarray, jnp.ndarray]:
    """Returns a (Logits, Value) tuple."""
    logits = self._policy_layer(inputs)  # [B, A]
    value = jnp.squeeze(self._value_layer(inputs), axis=-1)  # [B]

    return logits, value


class MyNetwork(hk.RNNCore):
  """A simple recurrent network for testing."""

  def __init__(self, num_actions: int):
    super().__init__(name='my_network')
    self._torso = hk.Sequential([
        lambda x: jnp.reshape(x, [jnp.prod(jnp.asarray(x.shape))]),  # expect: JIT404
        hk.nets.MLP([50, 50]),
    ])
    self._core = hk.LSTM(20)
    self._head = PolicyValueHead(num_actions)

  def __call__(self, inputs, state):
    embeddings = self._torso(inputs)
    embeddings, new_state = self._core(embeddings, state)
    logits, value = self._head(embeddings)
    return (logits, value), new_state

  def initial_state(self, batch_size: int):
    return self._core.initial_state(batch_size)


NUM_ACTIONS = 5  # stand-in for spec.actions.num_values


def forward_fn(x, s):
  model = MyNetwork(NUM_ACTIONS)
  return model(x, s)


def initial_state_fn(batch_size: Optional[int] = None):
  model = MyNetwork(NUM_ACTIONS)
  return model.initial_state(batch_size)


if __name__ == '__main__':
  observation = np.ones((10, 5), dtype=np.float32)
  state = hk.transform(initial_state_fn).apply(None, None)
  forward = hk.without_apply_rng(hk.transform(forward_fn))
  params = forward.init(jax.random.PRNGKey(0), observation, state)
  (logits, value), new_state = jax.jit(forward.apply)(params, observation, state)
  print(logits, value)
