# source: https://github.com/stergiosba/PaxRL/blob/30b2e72/pax/training/rollout.py (policy, RolloutManager.select_action_ppo; Agent/QRLinear/orthogonal_init from pax/training/models.py at the same commit)
# observed on jax 0.10.2 CPU: ValueError "Non-hashable static arguments are not supported" (TypeError: unhashable type: DynamicJaxprTracer) at the policy(model, obs, key) call in select_action_ppo
# gap: static-hashability
# added: imports; a small Categorical stand-in for tensorflow_probability.substrates.jax.distributions.Categorical;
#   a stand-in env object (observation/action space sizes) for pax.core.environment.Environment; the __main__ block.
#   RolloutManager is reduced to select_action_ppo. In 2023 JAX hashed tracers by id, so the model's (traced) leaves
#   passed the static-argument hash; today the eqx.Module full of arrays is rejected as a static argument.
from functools import partial
from typing import Tuple

import chex
import equinox as eqx
import jax
import jax.nn as jnn
import jax.numpy as jnp
import jax.numpy.linalg as la
import jax.random as jrandom


class Categorical:  # stand-in for tfp.distributions.Categorical
    def __init__(self, logits):
        self.logits = jnp.asarray(logits)

    def sample(self, seed):
        return jax.random.categorical(seed, self.logits)

    def log_prob(self, x):
        logp = jax.nn.log_softmax(self.logits)
        return jnp.take_along_axis(logp, x[..., None], axis=-1)[..., 0]


def orthogonal_init(
    array: chex.ArrayDevice, gain: float, key: chex.PRNGKey
) -> chex.ArrayDevice:
    if len(array.shape) < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")

    if array.size == 0:
        # no-op
        return array
    rows = array.shape[0]
    cols = array.size // rows
    flattened = jrandom.normal(key, (rows, cols))

    if rows < cols:
        flattened = flattened.T

    # Compute the qr factorization
    q, _ = la.qr(flattened)

    if rows < cols:
        q = q.T

    return gain * q


class QRLinear(eqx.nn.Linear):
    """
    Linear layer with orthogonal initialization of weights.
    """

    def __init__(self, input_dim: int, output_dim: int, gain: float, key: chex.PRNGKey):
        super().__init__(input_dim, output_dim, key=key)
        self.weight = orthogonal_init(self.weight, gain, key)
        self.bias = 0.0 * jnp.ones_like(self.bias)


class Agent(eqx.Module):
    """The agent class. This class contains the critic and actor networks."""

    critic: eqx.Module
    actor: eqx.Module
    action_space_size: chex.ArrayDevice

    def __init__(self, env, key: chex.PRNGKey):
        obs_shape = env.observation_space.shape
        self.action_space_size = env.action_space.size
        keys = jrandom.split(key, 6)

        self.critic = eqx.nn.Sequential(
            [
                QRLinear(
                    jnp.array(obs_shape).prod(),
                    64,
                    jnp.sqrt(0.2),
                    key=keys[0],
                ),
                eqx.nn.Lambda(jnn.tanh),
                QRLinear(64, 32, jnp.sqrt(0.2), key=keys[1]),
                eqx.nn.Lambda(jnn.tanh),
                QRLinear(32, 1, jnp.array([1]), key=keys[2]),
            ]
        )

        self.actor = eqx.nn.Sequential(
            [
                QRLinear(
                    jnp.array(obs_shape).prod(),
                    64,
                    jnp.sqrt(1),
                    key=keys[3],
                ),
                eqx.nn.Lambda(jnn.tanh),
                QRLinear(64, 32, jnp.sqrt(1), key=keys[4]),
                eqx.nn.Lambda(jnn.tanh),
                QRLinear(32, self.action_space_size, jnp.array([0.01]), key=keys[5]),
            ]
        )

    @eqx.filter_jit
    def __call__(
        self, x: chex.ArrayDevice
    ) -> Tuple[chex.ArrayDevice, chex.ArrayDevice]:
        value = self.critic(x)
        logits = self.actor(x)

        split_logits = jnp.split(logits, [11])

        return value, split_logits


@partial(jax.jit, static_argnums=0)
def policy(
    model: eqx.Module,
    obs: jnp.ndarray,
    key: chex.PRNGKey,
):
    value, split_logits = jax.vmap(model)(obs)
    multi_pi = Categorical(logits=split_logits)
    return value, multi_pi


class RolloutManager(object):
    def __init__(self, env, map_action):
        # Setup functionalities for vectorized batch rollout
        self.env = env
        self.map_action = map_action
        self.select_action = self.select_action_ppo

    @eqx.filter_jit
    def select_action_ppo(
        self,
        model: eqx.Module,
        obs: chex.ArrayDevice,
        key: chex.PRNGKey,
    ) -> Tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray, chex.PRNGKey]:
        value, multi_pi = policy(model, obs, key)  # expect: JIT302
        action = multi_pi.sample(seed=key)
        log_prob = multi_pi.log_prob(action)
        return action.T, log_prob.sum(0), value.flatten(), key


if __name__ == "__main__":
    class _Space:
        def __init__(self, shape=None, size=None):
            self.shape = shape
            self.size = size

    class _Env:
        observation_space = _Space(shape=(6,))
        action_space = _Space(size=22)

    env = _Env()
    agent = Agent(env, jrandom.PRNGKey(0))
    rollout_manager = RolloutManager(env, lambda a: a)
    obs = jnp.ones((4, 6))
    action, log_pi, value, key = rollout_manager.select_action(agent, obs, jrandom.PRNGKey(1))
    print(action.shape, log_pi.shape, value.shape)
