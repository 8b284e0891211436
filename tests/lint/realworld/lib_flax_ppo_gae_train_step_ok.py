# source: https://github.com/google/flax/blob/97ca05d283ba3e4da7f76a0715d073f84ac39696/examples/ppo/ppo_lib.py
#   (with `policy_action` from examples/ppo/agent.py and `ActorCritic` from examples/ppo/models.py
#   at the same commit)
# observed on jax 0.10.2 CPU (flax 0.12.8, optax 0.2.8): runs clean. `gae_advantages` is jitted
#   over a vmap and loops over `range(len(rewards))`, a static length; `train_step` keeps
#   `batch_size` static, reshapes by the static `iterations` and iterates the traced minibatches
#   with `zip`; `policy_action` is jitted with the model's `apply_fn` static; the host side fills
#   NumPy arrays from Python values. Added: the imports, the experience of two agents over four
#   steps with random 84x84x4 frames (the example's environment, RemoteSimulator and
#   get_experience are left out), the config values (`gamma`, `lambda_`, `batch_size`, ...), and
#   the driver at the end, which trains one epoch twice; the docstrings are shortened and
#   `create_train_state` takes the learning rate in place of the config, keeping the decaying
#   schedule branch.
# gap: exemption-vs-JAX
import collections
import functools
from typing import Any
from collections.abc import Callable

import flax
from flax import linen as nn
from flax.training import train_state
import jax
import jax.numpy as jnp
import numpy as np
import optax


class ActorCritic(nn.Module):
  """Class defining the actor-critic model."""

  num_outputs: int

  @nn.compact
  def __call__(self, x):
    dtype = jnp.float32
    x = x.astype(dtype) / 255.0
    x = nn.Conv(
        features=32,
        kernel_size=(8, 8),
        strides=(4, 4),
        name='conv1',
        dtype=dtype,
    )(x)
    x = nn.relu(x)
    x = nn.Conv(
        features=64,
        kernel_size=(4, 4),
        strides=(2, 2),
        name='conv2',
        dtype=dtype,
    )(x)
    x = nn.relu(x)
    x = nn.Conv(
        features=64,
        kernel_size=(3, 3),
        strides=(1, 1),
        name='conv3',
        dtype=dtype,
    )(x)
    x = nn.relu(x)
    x = x.reshape((x.shape[0], -1))  # flatten
    x = nn.Dense(features=512, name='hidden', dtype=dtype)(x)
    x = nn.relu(x)
    logits = nn.Dense(features=self.num_outputs, name='logits', dtype=dtype)(x)
    policy_log_probabilities = nn.log_softmax(logits)
    value = nn.Dense(features=1, name='value', dtype=dtype)(x)
    return policy_log_probabilities, value


@functools.partial(jax.jit, static_argnums=0)
def policy_action(
    apply_fn: Callable[..., Any],
    params: flax.core.frozen_dict.FrozenDict,
    state: np.ndarray,
):
  """Forward pass of the network."""
  out = apply_fn({'params': params}, state)
  return out


ExpTuple = collections.namedtuple(
    'ExpTuple', ['state', 'action', 'reward', 'value', 'log_prob', 'done']
)


@jax.jit
@functools.partial(jax.vmap, in_axes=(1, 1, 1, None, None), out_axes=1)
def gae_advantages(
    rewards: np.ndarray,
    terminal_masks: np.ndarray,
    values: np.ndarray,
    discount: float,
    gae_param: float,
):
  """Use Generalized Advantage Estimation (GAE) to compute advantages."""
  assert rewards.shape[0] + 1 == values.shape[0], (
      'One more value needed; Eq. '
      '(12) in PPO paper requires '
      'V(s_{t+1}) for delta_t'
  )
  advantages = []
  gae = 0.0
  for t in reversed(range(len(rewards))):
    # Masks used to set next state value to 0 for terminal states.
    value_diff = discount * values[t + 1] * terminal_masks[t] - values[t]
    delta = rewards[t] + value_diff
    # Masks[t] used to ensure that values before and after a terminal state
    # are independent of each other.
    gae = delta + discount * gae_param * terminal_masks[t] * gae
    advantages.append(gae)
  advantages = advantages[::-1]
  return jnp.array(advantages)


def loss_fn(
    params: flax.core.FrozenDict,
    apply_fn: Callable[..., Any],
    minibatch: tuple,
    clip_param: float,
    vf_coeff: float,
    entropy_coeff: float,
):
  """Evaluate the loss function."""
  states, actions, old_log_probs, returns, advantages = minibatch
  log_probs, values = policy_action(apply_fn, params, states)
  values = values[:, 0]  # Convert shapes: (batch, 1) to (batch, ).
  probs = jnp.exp(log_probs)

  value_loss = jnp.mean(jnp.square(returns - values), axis=0)

  entropy = jnp.sum(-probs * log_probs, axis=1).mean()

  log_probs_act_taken = jax.vmap(lambda lp, a: lp[a])(log_probs, actions)
  ratios = jnp.exp(log_probs_act_taken - old_log_probs)
  # Advantage normalization (following the OpenAI baselines).
  advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
  pg_loss = ratios * advantages
  clipped_loss = advantages * jax.lax.clamp(
      1.0 - clip_param, ratios, 1.0 + clip_param
  )
  ppo_loss = -jnp.mean(jnp.minimum(pg_loss, clipped_loss), axis=0)

  return ppo_loss + vf_coeff * value_loss - entropy_coeff * entropy


@functools.partial(jax.jit, static_argnums=(2,))
def train_step(
    state: train_state.TrainState,
    trajectories: tuple,
    batch_size: int,
    *,
    clip_param: float,
    vf_coeff: float,
    entropy_coeff: float,
):
  """Compilable train step."""
  iterations = trajectories[0].shape[0] // batch_size
  trajectories = jax.tree_util.tree_map(
      lambda x: x.reshape((iterations, batch_size) + x.shape[1:]), trajectories
  )
  loss = 0.0
  for batch in zip(*trajectories):
    grad_fn = jax.value_and_grad(loss_fn)
    l, grads = grad_fn(
        state.params, state.apply_fn, batch, clip_param, vf_coeff, entropy_coeff
    )
    loss += l
    state = state.apply_gradients(grads=grads)
  return state, loss


def process_experience(
    experience: list[list[ExpTuple]],
    actor_steps: int,
    num_agents: int,
    gamma: float,
    lambda_: float,
):
  """Process experience for training, including advantage estimation."""
  obs_shape = (84, 84, 4)
  exp_dims = (actor_steps, num_agents)
  values_dims = (actor_steps + 1, num_agents)
  states = np.zeros(exp_dims + obs_shape, dtype=np.float32)
  actions = np.zeros(exp_dims, dtype=np.int32)
  rewards = np.zeros(exp_dims, dtype=np.float32)
  values = np.zeros(values_dims, dtype=np.float32)
  log_probs = np.zeros(exp_dims, dtype=np.float32)
  dones = np.zeros(exp_dims, dtype=np.float32)

  for t in range(len(experience) - 1):  # experience[-1] only for next_values
    for agent_id, exp_agent in enumerate(experience[t]):
      states[t, agent_id, ...] = exp_agent.state
      actions[t, agent_id] = exp_agent.action
      rewards[t, agent_id] = exp_agent.reward
      values[t, agent_id] = exp_agent.value
      log_probs[t, agent_id] = exp_agent.log_prob
      # Dones need to be 0 for terminal states.
      dones[t, agent_id] = float(not exp_agent.done)
  for a in range(num_agents):
    values[-1, a] = experience[-1][a].value
  advantages = gae_advantages(rewards, dones, values, gamma, lambda_)
  returns = advantages + values[:-1, :]
  # After preprocessing, concatenate data from all agents.
  trajectories = (states, actions, log_probs, returns, advantages)
  trajectory_len = num_agents * actor_steps
  trajectories = tuple(
      map(
          lambda x: np.reshape(x, (trajectory_len,) + x.shape[2:]), trajectories
      )
  )
  return trajectories


@functools.partial(jax.jit, static_argnums=1)
def get_initial_params(key: jax.Array, model: nn.Module):
  input_dims = (1, 84, 84, 4)  # (minibatch, height, width, stacked frames)
  init_shape = jnp.ones(input_dims, jnp.float32)
  initial_params = model.init(key, init_shape)['params']
  return initial_params


def create_train_state(params, model: nn.Module, learning_rate, train_steps: int):
  lr = optax.linear_schedule(
      init_value=learning_rate,
      end_value=0.0,
      transition_steps=train_steps,
  )
  tx = optax.adam(lr)
  state = train_state.TrainState.create(
      apply_fn=model.apply, params=params, tx=tx
  )
  return state


if __name__ == '__main__':
  num_agents, actor_steps, num_actions, batch_size = 2, 4, 3, 4
  rng = np.random.default_rng(0)
  experience = [
      [
          ExpTuple(
              rng.integers(0, 255, (84, 84, 4)).astype(np.float32),
              int(rng.integers(num_actions)),
              float(rng.normal()),
              float(rng.normal()),
              float(np.log(1.0 / num_actions)),
              bool(rng.integers(2)),
          )
          for _ in range(num_agents)
      ]
      for _ in range(actor_steps + 1)
  ]
  model = ActorCritic(num_outputs=num_actions)
  params = get_initial_params(jax.random.key(0), model)
  state = create_train_state(params, model, 2.5e-4, train_steps=10)
  trajectories = process_experience(experience, actor_steps, num_agents, 0.99, 0.95)
  for _ in range(2):
    state, loss = train_step(
        state, trajectories, batch_size,
        clip_param=0.1, vf_coeff=0.5, entropy_coeff=0.01)
  assert np.isfinite(float(loss))
  assert int(state.step) == 2 * (num_agents * actor_steps // batch_size)
