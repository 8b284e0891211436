# source: https://github.com/google/dopamine/blob/ba26834bfe76950c3d9f0f3ae6d8f7061ca60ffa/dopamine/jax/agents/rainbow/rainbow_agent.py
#   (JaxRainbowAgent before commit 71ee2ed, "Remove support from static_argnums, as it is
#   not a hashable type (and now causes an error). More details:
#   https://github.com/google/jax/pull/4717", which changes static_argnums=(7, 8) to (8))
# observed on jax 0.10.2 CPU: _train_step passes self._support, the jnp.linspace the
#   agent's __init__ makes, as train's static argument 7, and the call raises ValueError
#   "Non-hashable static arguments are not supported" (ArrayImpl is unhashable) before
#   train is traced. Kept verbatim: train, target_distribution, _train_step and
#   project_distribution (docstrings kept). Stand-ins (dopamine, gin, tensorflow and the old
#   flax.nn/flax.optim APIs are not available): `networks` with the file's
#   softmax_cross_entropy_loss_with_logits (dopamine/jax/networks.py at the same commit);
#   an agent __init__ keeping the lines that build self._support; a replay buffer, a
#   sampled batch, a target network and an optimizer pytree; `tf` is only reached with a
#   summary writer, which the agent does not have.
# gap: static-hashability
import functools
import types

from flax import struct
import jax
import jax.numpy as jnp


def softmax_cross_entropy_loss_with_logits(labels, logits):
  return -jnp.sum(labels * jax.nn.log_softmax(logits))


networks = types.SimpleNamespace(
    softmax_cross_entropy_loss_with_logits=softmax_cross_entropy_loss_with_logits)


@functools.partial(jax.jit, static_argnums=(7, 8))
def train(target_network, optimizer, states, actions, next_states, rewards,
          terminals, support, cumulative_gamma):
  """Run a training step."""
  def loss_fn(model, target, mean_loss=True):
    logits = jax.vmap(model)(states).logits
    logits = jnp.squeeze(logits)
    # Fetch the logits for its selected action. We use vmap to perform this
    # indexing across the batch.
    chosen_action_logits = jax.vmap(lambda x, y: x[y])(logits, actions)
    loss = jax.vmap(networks.softmax_cross_entropy_loss_with_logits)(
        target,
        chosen_action_logits)
    if mean_loss:
      loss = jnp.mean(loss)
    return loss
  grad_fn = jax.value_and_grad(loss_fn)
  target = target_distribution(target_network,
                               next_states,
                               rewards,
                               terminals,
                               support,
                               cumulative_gamma)
  mean_loss, grad = grad_fn(optimizer.target, target)
  # Get the loss without taking its mean.
  loss = loss_fn(optimizer.target, target, mean_loss=False)
  optimizer = optimizer.apply_gradient(grad)
  return optimizer, loss, mean_loss


@functools.partial(jax.vmap, in_axes=(None, 0, 0, 0, None, None))
def target_distribution(target_network, next_states, rewards, terminals,
                        support, cumulative_gamma):
  """Builds the C51 target distribution as per Bellemare et al. (2017).

  First, we compute the support of the Bellman target, r + gamma Z'. Where Z'
  is the support of the next state distribution:

    * Evenly spaced in [-vmax, vmax] if the current state is nonterminal;
    * 0 otherwise (duplicated num_atoms times).

  Second, we compute the next-state probabilities, corresponding to the action
  with highest expected value.

  Finally we project the Bellman target (support + probabilities) onto the
  original support.

  Args:
    target_network: Jax Module used for the target network.
    next_states: numpy array of batched next states.
    rewards: numpy array of batched rewards.
    terminals: numpy array of batched terminals.
    support: support for the distribution (static_argnum).
    cumulative_gamma: float, cumulative gamma to use (static_argnum).

  Returns:
    The target distribution from the replay.
  """
  is_terminal_multiplier = 1. - terminals.astype(jnp.float32)
  # Incorporate terminal state to discount factor.
  gamma_with_terminal = cumulative_gamma * is_terminal_multiplier
  target_support = rewards + gamma_with_terminal * support
  next_state_target_outputs = target_network(next_states)
  q_values = jnp.squeeze(next_state_target_outputs.q_values)
  next_qt_argmax = jnp.argmax(q_values)
  probabilities = jnp.squeeze(next_state_target_outputs.probabilities)
  next_probabilities = probabilities[next_qt_argmax]
  return jax.lax.stop_gradient(
      project_distribution(target_support, next_probabilities, support))


@struct.dataclass
class _NetworkOutput:
  # stand-in for atari_lib.RainbowNetworkType
  q_values: jnp.ndarray
  logits: jnp.ndarray
  probabilities: jnp.ndarray


@struct.dataclass
class _Model:
  # stand-in for a flax.nn.Model: a linear map from flattened states to atom logits
  w: jnp.ndarray
  num_actions: int = struct.field(pytree_node=False, default=2)

  def __call__(self, x):
    logits = (x.reshape(-1) @ self.w).reshape(self.num_actions, -1)
    probabilities = jax.nn.softmax(logits)
    return _NetworkOutput(jnp.mean(logits, axis=1), logits, probabilities)


@struct.dataclass
class _Optimizer:
  # stand-in for a flax.optim optimizer: plain SGD on `target`
  target: _Model

  def apply_gradient(self, grad):
    return self.replace(target=jax.tree_util.tree_map(
        lambda p, g: p - 0.01 * g, self.target, grad))


class _Replay:
  # stand-in for OutOfGraphPrioritizedReplayBuffer
  add_count = 100

  def set_priority(self, indices, priorities):
    pass


class JaxRainbowAgent:
  """A compact implementation of a simplified Rainbow agent."""

  def __init__(self, num_actions=2, num_atoms=51, vmin=None, vmax=10., gamma=0.99):
    # stand-in for the agent's __init__ and its JaxDQNAgent base class; the lines
    # that build self._support are the file's
    vmax = float(vmax)
    self._num_atoms = num_atoms
    # If vmin is not specified, set it to -vmax similar to C51.
    vmin = vmin if vmin else -vmax
    self._support = jnp.linspace(vmin, vmax, num_atoms)
    self._replay_scheme = 'prioritized'
    self._replay = _Replay()
    self.min_replay_history, self.update_period, self.target_update_period = 20, 1, 8
    self.training_steps = 0
    self.cumulative_gamma = gamma
    self.summary_writer = None
    model = _Model(jnp.zeros((4, num_actions * num_atoms)), num_actions=num_actions)
    self.target_network = model
    self.optimizer = _Optimizer(model)

  def _sample_from_replay_buffer(self):
    # stand-in: a batch of 8 transitions with 4-dimensional states
    self.replay_elements = {
        'state': jnp.ones((8, 4)), 'action': jnp.zeros(8, jnp.int32),
        'next_state': jnp.ones((8, 4)), 'reward': jnp.ones(8),
        'terminal': jnp.zeros(8, jnp.int32), 'indices': jnp.arange(8),
        'sampling_probabilities': jnp.full(8, 0.125),
    }

  def _sync_weights(self):
    self.target_network = self.optimizer.target

  def _train_step(self):
    """Runs a single training step.

    Runs training if both:
      (1) A minimum number of frames have been added to the replay buffer.
      (2) `training_steps` is a multiple of `update_period`.

    Also, syncs weights from online_network to target_network if training steps
    is a multiple of target update period.
    """
    if self._replay.add_count > self.min_replay_history:
      if self.training_steps % self.update_period == 0:
        self._sample_from_replay_buffer()
        self.optimizer, loss, mean_loss = train(  # expect: JIT302
            self.target_network,
            self.optimizer,
            self.replay_elements['state'],
            self.replay_elements['action'],
            self.replay_elements['next_state'],
            self.replay_elements['reward'],
            self.replay_elements['terminal'],
            self._support,
            self.cumulative_gamma)
        if self._replay_scheme == 'prioritized':
          # The original prioritized experience replay uses a linear exponent
          # schedule 0.4 -> 1.0. Comparing the schedule to a fixed exponent of
          # 0.5 on 5 games (Asterix, Pong, Q*Bert, Seaquest, Space Invaders)
          # suggested a fixed exponent actually performs better, except on Pong.
          probs = self.replay_elements['sampling_probabilities']
          loss_weights = 1.0 / jnp.sqrt(probs + 1e-10)
          loss_weights /= jnp.max(loss_weights)

          # Rainbow and prioritized replay are parametrized by an exponent
          # alpha, but in both cases it is set to 0.5 - for simplicity's sake we
          # leave it as is here, using the more direct sqrt(). Taking the square
          # root "makes sense", as we are dealing with a squared loss.  Add a
          # small nonzero value to the loss to avoid 0 priority items. While
          # technically this may be okay, setting all items to 0 priority will
          # cause troubles, and also result in 1.0 / 0.0 = NaN correction terms.
          self._replay.set_priority(self.replay_elements['indices'],
                                    jnp.sqrt(loss + 1e-10))

          # Weight the loss by the inverse priorities.
          loss = loss_weights * loss
          mean_loss = jnp.mean(loss)
        if self.summary_writer is not None:
          summary = tf.compat.v1.Summary(value=[
              tf.compat.v1.Summary.Value(tag='CrossEntropyLoss',
                                         simple_value=mean_loss)])
          self.summary_writer.add_summary(summary, self.training_steps)
      if self.training_steps % self.target_update_period == 0:
        self._sync_weights()

    self.training_steps += 1


def project_distribution(supports, weights, target_support):
  """Projects a batch of (support, weights) onto target_support.

  Based on equation (7) in (Bellemare et al., 2017):
    https://arxiv.org/abs/1707.06887
  In the rest of the comments we will refer to this equation simply as Eq7.

  Args:
    supports: Jax array of shape (num_dims) defining supports for
      the distribution.
    weights: Jax array of shape (num_dims) defining weights on the
      original support points. Although for the CategoricalDQN agent these
      weights are probabilities, it is not required that they are.
    target_support: Jax array of shape (num_dims) defining support of the
      projected distribution. The values must be monotonically increasing. Vmin
      and Vmax will be inferred from the first and last elements of this Jax
      array, respectively. The values in this Jax array must be equally spaced.

  Returns:
    A Jax array of shape (num_dims) with the projection of a batch
    of (support, weights) onto target_support.

  Raises:
    ValueError: If target_support has no dimensions, or if shapes of supports,
      weights, and target_support are incompatible.
  """
  v_min, v_max = target_support[0], target_support[-1]
  # `N` in Eq7.
  num_dims = target_support.shape[0]
  # delta_z = `\Delta z` in Eq7.
  delta_z = (v_max - v_min) / (num_dims - 1)
  # clipped_support = `[\hat{T}_{z_j}]^{V_max}_{V_min}` in Eq7.
  clipped_support = jnp.clip(supports, v_min, v_max)
  # numerator = `|clipped_support - z_i|` in Eq7.
  numerator = jnp.abs(clipped_support - target_support[:, None])
  quotient = 1 - (numerator / delta_z)
  # clipped_quotient = `[1 - numerator / (\Delta z)]_0^1` in Eq7.
  clipped_quotient = jnp.clip(quotient, 0, 1)
  # inner_prod = `\sum_{j=0}^{N-1} clipped_quotient * p_j(x', \pi(x'))` in Eq7.
  inner_prod = clipped_quotient * weights
  return jnp.squeeze(jnp.sum(inner_prod, -1))


if __name__ == "__main__":
  agent = JaxRainbowAgent()
  agent._train_step()
