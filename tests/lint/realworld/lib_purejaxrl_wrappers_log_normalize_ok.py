# source: https://github.com/luchris429/purejaxrl/blob/31756b197773a52db763fdbe6d635e4b46522a73/purejaxrl/wrappers.py
#   (GymnaxWrapper, FlattenObservationWrapper, LogEnvState, LogWrapper, ClipAction,
#   TransformReward, VecEnv, NormalizeVecObsEnvState, NormalizeVecObservation,
#   NormalizeVecRewEnvState and NormalizeVecReward verbatim; the Brax and Navix wrappers are
#   left out with their imports)
# observed on jax 0.10.2 CPU: a rollout of 5 steps of 3 vectorised environments through
#   the wrapper stack (flatten, log, clip, reward transform, vmap, observation and reward
#   normalisation) runs under jax.jit inside lax.scan and matches the same rollout run
#   eagerly. The wrappers' jitted methods hold `self` static (hashed by identity, never
#   changed), `info[...] = ...` writes into the dict the inner step built in the same
#   trace, and the running statistics travel in the returned state.
#   Stand-ins (gymnax is not installed): `environment.Environment`/`EnvState`/`EnvParams`
#   and `spaces.Box` with gymnax's attributes, and a small environment with a (2, 2)
#   observation whose episodes end when the first coordinate leaves [-1, 1]. Added: the
#   __main__ block.
# gap: exemption-vs-JAX
import types

import jax
import jax.numpy as jnp
import chex
import numpy as np
from flax import struct
from functools import partial
from typing import Optional, Tuple, Union, Any


# ---- stand-ins for gymnax.environments.environment and spaces ----
class _Box:
    def __init__(self, low, high, shape, dtype=jnp.float32):
        self.low, self.high, self.shape, self.dtype = low, high, shape, dtype


class _Environment:
    pass


environment = types.SimpleNamespace(Environment=_Environment, EnvState=Any, EnvParams=Any)
spaces = types.SimpleNamespace(Box=_Box)


class _TinyEnv(_Environment):
    def reset(self, key, params=None):
        state = jax.random.uniform(key, (2, 2), minval=-0.1, maxval=0.1)
        return state, state

    def step(self, key, state, action, params=None):
        state = state + 0.1 * action + 0.05 * jax.random.normal(key, (2, 2))
        done = jnp.abs(state[0, 0]) > 1.0
        state = jnp.where(done, jnp.zeros_like(state), state)
        return state, state, 1.0 + state[0, 1], done, {}

    def observation_space(self, params):
        return _Box(low=-jnp.inf, high=jnp.inf, shape=(2, 2))
# ---- end of stand-ins ----


class GymnaxWrapper(object):
    """Base class for Gymnax wrappers."""

    def __init__(self, env):
        self._env = env

    # provide proxy access to regular attributes of wrapped object
    def __getattr__(self, name):
        return getattr(self._env, name)


class FlattenObservationWrapper(GymnaxWrapper):
    """Flatten the observations of the environment."""

    def __init__(self, env: environment.Environment):
        super().__init__(env)

    def observation_space(self, params) -> spaces.Box:
        assert isinstance(
            self._env.observation_space(params), spaces.Box
        ), "Only Box spaces are supported for now."
        return spaces.Box(
            low=self._env.observation_space(params).low,
            high=self._env.observation_space(params).high,
            shape=(np.prod(self._env.observation_space(params).shape),),
            dtype=self._env.observation_space(params).dtype,
        )

    @partial(jax.jit, static_argnums=(0,))
    def reset(
        self, key: chex.PRNGKey, params: Optional[environment.EnvParams] = None
    ) -> Tuple[chex.Array, environment.EnvState]:
        obs, state = self._env.reset(key, params)
        obs = jnp.reshape(obs, (-1,))
        return obs, state

    @partial(jax.jit, static_argnums=(0,))
    def step(
        self,
        key: chex.PRNGKey,
        state: environment.EnvState,
        action: Union[int, float],
        params: Optional[environment.EnvParams] = None,
    ) -> Tuple[chex.Array, environment.EnvState, float, bool, dict]:
        obs, state, reward, done, info = self._env.step(key, state, action, params)
        obs = jnp.reshape(obs, (-1,))
        return obs, state, reward, done, info


@struct.dataclass
class LogEnvState:
    env_state: environment.EnvState
    episode_returns: float
    episode_lengths: int
    returned_episode_returns: float
    returned_episode_lengths: int
    timestep: int


class LogWrapper(GymnaxWrapper):
    """Log the episode returns and lengths."""

    def __init__(self, env: environment.Environment):
        super().__init__(env)

    @partial(jax.jit, static_argnums=(0,))
    def reset(
        self, key: chex.PRNGKey, params: Optional[environment.EnvParams] = None
    ) -> Tuple[chex.Array, environment.EnvState]:
        obs, env_state = self._env.reset(key, params)
        state = LogEnvState(env_state, 0, 0, 0, 0, 0)
        return obs, state

    @partial(jax.jit, static_argnums=(0,))
    def step(
        self,
        key: chex.PRNGKey,
        state: environment.EnvState,
        action: Union[int, float],
        params: Optional[environment.EnvParams] = None,
    ) -> Tuple[chex.Array, environment.EnvState, float, bool, dict]:
        obs, env_state, reward, done, info = self._env.step(
            key, state.env_state, action, params
        )
        new_episode_return = state.episode_returns + reward
        new_episode_length = state.episode_lengths + 1
        state = LogEnvState(
            env_state=env_state,
            episode_returns=new_episode_return * (1 - done),
            episode_lengths=new_episode_length * (1 - done),
            returned_episode_returns=state.returned_episode_returns * (1 - done)
            + new_episode_return * done,
            returned_episode_lengths=state.returned_episode_lengths * (1 - done)
            + new_episode_length * done,
            timestep=state.timestep + 1,
        )
        info["returned_episode_returns"] = state.returned_episode_returns
        info["returned_episode_lengths"] = state.returned_episode_lengths
        info["timestep"] = state.timestep
        info["returned_episode"] = done
        return obs, state, reward, done, info


class ClipAction(GymnaxWrapper):
    def __init__(self, env, low=-1.0, high=1.0):
        super().__init__(env)
        self.low = low
        self.high = high

    def step(self, key, state, action, params=None):
        """TODO: In theory the below line should be the way to do this."""
        # action = jnp.clip(action, self.env.action_space.low, self.env.action_space.high)
        action = jnp.clip(action, self.low, self.high)
        return self._env.step(key, state, action, params)


class TransformReward(GymnaxWrapper):
    def __init__(self, env, transform_reward):
        super().__init__(env)
        self.transform_reward = transform_reward

    def step(self, key, state, action, params=None):
        obs, state, reward, done, info = self._env.step(key, state, action, params)
        return obs, state, self.transform_reward(reward), done, info


class VecEnv(GymnaxWrapper):
    def __init__(self, env):
        super().__init__(env)
        self.reset = jax.vmap(self._env.reset, in_axes=(0, None))
        self.step = jax.vmap(self._env.step, in_axes=(0, 0, 0, None))


@struct.dataclass
class NormalizeVecObsEnvState:
    mean: jnp.ndarray
    var: jnp.ndarray
    count: float
    env_state: environment.EnvState


class NormalizeVecObservation(GymnaxWrapper):
    def __init__(self, env):
        super().__init__(env)

    def reset(self, key, params=None):
        obs, state = self._env.reset(key, params)
        state = NormalizeVecObsEnvState(
            mean=jnp.zeros_like(obs),
            var=jnp.ones_like(obs),
            count=1e-4,
            env_state=state,
        )
        batch_mean = jnp.mean(obs, axis=0)
        batch_var = jnp.var(obs, axis=0)
        batch_count = obs.shape[0]

        delta = batch_mean - state.mean
        tot_count = state.count + batch_count

        new_mean = state.mean + delta * batch_count / tot_count
        m_a = state.var * state.count
        m_b = batch_var * batch_count
        M2 = m_a + m_b + jnp.square(delta) * state.count * batch_count / tot_count
        new_var = M2 / tot_count
        new_count = tot_count

        state = NormalizeVecObsEnvState(
            mean=new_mean,
            var=new_var,
            count=new_count,
            env_state=state.env_state,
        )

        return (obs - state.mean) / jnp.sqrt(state.var + 1e-8), state

    def step(self, key, state, action, params=None):
        obs, env_state, reward, done, info = self._env.step(
            key, state.env_state, action, params
        )

        batch_mean = jnp.mean(obs, axis=0)
        batch_var = jnp.var(obs, axis=0)
        batch_count = obs.shape[0]

        delta = batch_mean - state.mean
        tot_count = state.count + batch_count

        new_mean = state.mean + delta * batch_count / tot_count
        m_a = state.var * state.count
        m_b = batch_var * batch_count
        M2 = m_a + m_b + jnp.square(delta) * state.count * batch_count / tot_count
        new_var = M2 / tot_count
        new_count = tot_count

        state = NormalizeVecObsEnvState(
            mean=new_mean,
            var=new_var,
            count=new_count,
            env_state=env_state,
        )
        return (
            (obs - state.mean) / jnp.sqrt(state.var + 1e-8),
            state,
            reward,
            done,
            info,
        )


@struct.dataclass
class NormalizeVecRewEnvState:
    mean: jnp.ndarray
    var: jnp.ndarray
    count: float
    return_val: float
    env_state: environment.EnvState


class NormalizeVecReward(GymnaxWrapper):
    def __init__(self, env, gamma):
        super().__init__(env)
        self.gamma = gamma

    def reset(self, key, params=None):
        obs, state = self._env.reset(key, params)
        batch_count = obs.shape[0]
        state = NormalizeVecRewEnvState(
            mean=0.0,
            var=1.0,
            count=1e-4,
            return_val=jnp.zeros((batch_count,)),
            env_state=state,
        )
        return obs, state

    def step(self, key, state, action, params=None):
        obs, env_state, reward, done, info = self._env.step(
            key, state.env_state, action, params
        )
        return_val = state.return_val * self.gamma * (1 - done) + reward

        batch_mean = jnp.mean(return_val, axis=0)
        batch_var = jnp.var(return_val, axis=0)
        batch_count = obs.shape[0]

        delta = batch_mean - state.mean
        tot_count = state.count + batch_count

        new_mean = state.mean + delta * batch_count / tot_count
        m_a = state.var * state.count
        m_b = batch_var * batch_count
        M2 = m_a + m_b + jnp.square(delta) * state.count * batch_count / tot_count
        new_var = M2 / tot_count
        new_count = tot_count

        state = NormalizeVecRewEnvState(
            mean=new_mean,
            var=new_var,
            count=new_count,
            return_val=return_val,
            env_state=env_state,
        )
        return obs, state, reward / jnp.sqrt(state.var + 1e-8), done, info


if __name__ == "__main__":
    env = _TinyEnv()
    env = FlattenObservationWrapper(env)
    env = LogWrapper(env)
    env = ClipAction(env, low=-0.5, high=0.5)
    env = TransformReward(env, lambda r: r * 0.1)
    env = VecEnv(env)
    env = NormalizeVecObservation(env)
    env = NormalizeVecReward(env, 0.99)
    num_envs, num_steps = 3, 5
    assert env.observation_space(None).shape == (4,)

    def rollout(key):
        key, reset_key = jax.random.split(key)
        obs, env_state = env.reset(jax.random.split(reset_key, num_envs), None)

        def _env_step(carry, unused):
            env_state, key = carry
            key, action_key, step_key = jax.random.split(key, 3)
            action = jax.random.uniform(action_key, (num_envs,), minval=-1.0, maxval=1.0)
            obs, env_state, reward, done, info = env.step(
                jax.random.split(step_key, num_envs), env_state, action, None)
            return (env_state, key), (obs, reward, info["returned_episode_returns"])

        _, (obs, rewards, returns) = jax.lax.scan(_env_step, (env_state, key), None, num_steps)
        return obs, rewards, returns

    jitted = jax.jit(rollout)(jax.random.key(0))
    eager = rollout(jax.random.key(0))
    assert jitted[0].shape == (num_steps, num_envs, 4)
    for a, b in zip(jitted, eager):
        assert np.allclose(a, b, atol=1e-5), (a, b)
    assert np.all(np.isfinite(jitted[1]))
