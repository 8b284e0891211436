# source: https://github.com/google/brax/blob/a89322496dcb07ac5a7e002c2e1d287c8c64b7dd/brax/training/distribution.py
#   (brax v0.9.4; with make_inference_fn of brax/training/agents/ppo/networks.py at the
#   same tag)
# observed on jax 0.10.2 CPU: runs clean under jax.jit: the PPO policy samples pre-tanh
#   actions with its own key, scores them with log_prob and squashes them; `deterministic`
#   is a Python bool closed over by make_policy, and `self._event_ndims == 1` tests a
#   Python int set in __init__ (never changed), so both branches are decided at trace time;
#   the entropy estimate draws from a second key, and jax.grad of the log-probability runs
#   too. Kept: the whole distribution.py below its imports, and make_inference_fn verbatim
#   but for its annotations (`types.PolicyParams`, `types.Policy`, `types.Observation`,
#   `types.Action`, `types.Extra` are spelled typing.Any); PPONetworks is reduced to the two
#   fields make_policy reads, with a one-layer flax policy network as a stand-in.
# gap: stale-state-attributes
"""Probability distributions in JAX."""

import abc
import dataclasses
from typing import Any, Tuple

import flax.linen as nn
import jax
import jax.numpy as jnp

PRNGKey = jax.Array


class ParametricDistribution(abc.ABC):
  """Abstract class for parametric (action) distribution."""

  def __init__(self, param_size, postprocessor, event_ndims, reparametrizable):
    """Abstract class for parametric (action) distribution.

    Specifies how to transform distribution parameters (i.e. actor output)
    into a distribution over actions.

    Args:
      param_size: size of the parameters for the distribution
      postprocessor: bijector which is applied after sampling (in practice, it's
        tanh or identity)
      event_ndims: rank of the distribution sample (i.e. action)
      reparametrizable: is the distribution reparametrizable
    """
    self._param_size = param_size
    self._postprocessor = postprocessor
    self._event_ndims = event_ndims  # rank of events
    self._reparametrizable = reparametrizable
    assert event_ndims in [0, 1]

  @abc.abstractmethod
  def create_dist(self, parameters):
    """Creates distribution from parameters."""
    pass

  @property
  def param_size(self):
    return self._param_size

  @property
  def reparametrizable(self):
    return self._reparametrizable

  def postprocess(self, event):
    return self._postprocessor.forward(event)

  def inverse_postprocess(self, event):
    return self._postprocessor.inverse(event)

  def sample_no_postprocessing(self, parameters, seed):
    return self.create_dist(parameters).sample(seed=seed)

  def sample(self, parameters, seed):
    """Returns a sample from the postprocessed distribution."""
    return self.postprocess(self.sample_no_postprocessing(parameters, seed))

  def mode(self, parameters):
    """Returns the mode of the postprocessed distribution."""
    return self.postprocess(self.create_dist(parameters).mode())

  def log_prob(self, parameters, actions):
    """Compute the log probability of actions."""
    dist = self.create_dist(parameters)
    log_probs = dist.log_prob(actions)
    log_probs -= self._postprocessor.forward_log_det_jacobian(actions)
    if self._event_ndims == 1:
      log_probs = jnp.sum(log_probs, axis=-1)  # sum over action dimension
    return log_probs

  def entropy(self, parameters, seed):
    """Return the entropy of the given distribution."""
    dist = self.create_dist(parameters)
    entropy = dist.entropy()
    entropy += self._postprocessor.forward_log_det_jacobian(
        dist.sample(seed=seed))
    if self._event_ndims == 1:
      entropy = jnp.sum(entropy, axis=-1)
    return entropy


class NormalDistribution:
  """Normal distribution."""

  def __init__(self, loc, scale):
    self.loc = loc
    self.scale = scale

  def sample(self, seed):
    return jax.random.normal(seed, shape=self.loc.shape) * self.scale + self.loc

  def mode(self):
    return self.loc

  def log_prob(self, x):
    log_unnormalized = -0.5 * jnp.square(x / self.scale - self.loc / self.scale)
    log_normalization = 0.5 * jnp.log(2. * jnp.pi) + jnp.log(self.scale)
    return log_unnormalized - log_normalization

  def entropy(self):
    log_normalization = 0.5 * jnp.log(2. * jnp.pi) + jnp.log(self.scale)
    entropy = 0.5 + log_normalization
    return entropy * jnp.ones_like(self.loc)


class TanhBijector:
  """Tanh Bijector."""

  def forward(self, x):
    return jnp.tanh(x)

  def inverse(self, y):
    return jnp.arctanh(y)

  def forward_log_det_jacobian(self, x):
    return 2. * (jnp.log(2.) - x - jax.nn.softplus(-2. * x))


class NormalTanhDistribution(ParametricDistribution):
  """Normal distribution followed by tanh."""

  def __init__(self, event_size, min_std=0.001):
    """Initialize the distribution.

    Args:
      event_size: the size of events (i.e. actions).
      min_std: minimum std for the gaussian.
    """
    # We apply tanh to gaussian actions to bound them.
    # Normally we would use TransformedDistribution to automatically
    # apply tanh to the distribution.
    # We can't do it here because of tanh saturation
    # which would make log_prob computations impossible. Instead, most
    # of the code operate on pre-tanh actions and we take the postprocessor
    # jacobian into account in log_prob computations.
    super().__init__(
        param_size=2 * event_size,
        postprocessor=TanhBijector(),
        event_ndims=1,
        reparametrizable=True)
    self._min_std = min_std

  def create_dist(self, parameters):
    loc, scale = jnp.split(parameters, 2, axis=-1)
    scale = jax.nn.softplus(scale) + self._min_std
    return NormalDistribution(loc=loc, scale=scale)


@dataclasses.dataclass
class PPONetworks:
  # stand-in for brax.training.agents.ppo.networks.PPONetworks (value network left out)
  policy_network: Any
  parametric_action_distribution: ParametricDistribution


class _PolicyNetworkStandIn:
  # stand-in for brax's FeedForwardNetwork: apply(normalizer_params, params, obs)
  def __init__(self, param_size):
    self.module = nn.Dense(param_size)

  def init(self, key, obs_size):
    return self.module.init(key, jnp.zeros((1, obs_size)))

  def apply(self, normalizer_params, params, observations):
    return self.module.apply(params, observations)


def make_inference_fn(ppo_networks: PPONetworks):
  """Creates params and inference function for the PPO agent."""

  def make_policy(params: Any,
                  deterministic: bool = False) -> Any:
    policy_network = ppo_networks.policy_network
    parametric_action_distribution = ppo_networks.parametric_action_distribution

    def policy(observations: Any,
               key_sample: PRNGKey) -> Tuple[Any, Any]:
      logits = policy_network.apply(*params, observations)
      if deterministic:
        return ppo_networks.parametric_action_distribution.mode(logits), {}
      raw_actions = parametric_action_distribution.sample_no_postprocessing(
          logits, key_sample)
      log_prob = parametric_action_distribution.log_prob(logits, raw_actions)
      postprocessed_actions = parametric_action_distribution.postprocess(
          raw_actions)
      return postprocessed_actions, {
          'log_prob': log_prob,
          'raw_action': raw_actions
      }

    return policy

  return make_policy


if __name__ == "__main__":
  dist = NormalTanhDistribution(event_size=3)
  policy_network = _PolicyNetworkStandIn(dist.param_size)
  k_init, k_obs, k_act, k_greedy, k_ent = jax.random.split(jax.random.key(0), 5)
  params = (None, policy_network.init(k_init, 5))
  networks = PPONetworks(policy_network, dist)
  make_policy = make_inference_fn(networks)
  observations = jax.random.normal(k_obs, (4, 5))

  actions, extras = jax.jit(make_policy(params))(observations, k_act)
  greedy, _ = jax.jit(make_policy(params, deterministic=True))(observations, k_greedy)
  assert actions.shape == greedy.shape == (4, 3)
  assert bool(jnp.all(jnp.abs(actions) <= 1.0))

  logits = policy_network.apply(*params, observations)
  entropy = jax.jit(dist.entropy)(logits, k_ent)
  grad = jax.jit(jax.grad(lambda l: dist.log_prob(l, extras['raw_action']).sum()))(logits)
  assert entropy.shape == (4,) and grad.shape == logits.shape
