# source: https://github.com/RobertTLange/gymnax/blob/88fef6978d3d9966828256bfc27f5489b57f7757/gymnax/environments/classic_control/pendulum.py
#   (with the Environment base class of gymnax/environments/environment.py at the same commit)
# observed on jax 0.10.2 CPU: the jitted `step` and `reset` (decorated with
#   `partial(jax.jit, static_argnums=(0,))`, the environment hashed by identity) run inside a
#   jitted `lax.scan` rollout: `step` splits its key for the transition and the auto-reset,
#   `is_terminal` compares the traced time with the static episode length and the reset
#   is selected with `lax.select`; the rollout auto-resets after 200 steps. Kept verbatim:
#   EnvState, EnvParams, Pendulum (its action/observation/state spaces are left out) and
#   angle_normalize; environment.py's EnvState, EnvParams and Environment, reached through a
#   namespace standing in for the `environment` module. Current spelling: `jax.tree_map` is
#   `jax.tree.map`.
# gap: other
import functools
from types import SimpleNamespace
from typing import Any, Dict, Generic, Optional, Tuple, TypeVar, Union, overload

import chex
from flax import struct
import jax
from jax import lax
import jax.numpy as jnp


TEnvState = TypeVar("TEnvState", bound="EnvState")
TEnvParams = TypeVar("TEnvParams", bound="EnvParams")


# --- gymnax/environments/environment.py ---
@struct.dataclass
class EnvState:
    time: int


@struct.dataclass
class EnvParams:
    max_steps_in_episode: int = 1


class Environment(Generic[TEnvState, TEnvParams]):  # object):
    """Jittable abstract base class for all gymnax Environments."""

    @property
    def default_params(self) -> EnvParams:
        return EnvParams()

    @functools.partial(jax.jit, static_argnums=(0,))
    def step(
        self,
        key: chex.PRNGKey,
        state: TEnvState,
        action: Union[int, float, chex.Array],
        params: Optional[TEnvParams] = None,
    ) -> Tuple[chex.Array, TEnvState, jnp.ndarray, jnp.ndarray, Dict[Any, Any]]:
        """Performs step transitions in the environment."""
        # Use default env parameters if no others specified
        if params is None:
            params = self.default_params
        key, key_reset = jax.random.split(key)
        obs_st, state_st, reward, done, info = self.step_env(key, state, action, params)
        obs_re, state_re = self.reset_env(key_reset, params)
        # Auto-reset environment based on termination
        state = jax.tree.map(
            lambda x, y: jax.lax.select(done, x, y), state_re, state_st
        )
        obs = jax.lax.select(done, obs_re, obs_st)
        return obs, state, reward, done, info

    @functools.partial(jax.jit, static_argnums=(0,))
    def reset(
        self, key: chex.PRNGKey, params: Optional[TEnvParams] = None
    ) -> Tuple[chex.Array, TEnvState]:
        """Performs resetting of environment."""
        # Use default env parameters if no others specified
        if params is None:
            params = self.default_params
        obs, state = self.reset_env(key, params)
        return obs, state

    def step_env(
        self,
        key: chex.PRNGKey,
        state: TEnvState,
        action: Union[int, float, chex.Array],
        params: TEnvParams,
    ) -> Tuple[chex.Array, TEnvState, jnp.ndarray, jnp.ndarray, Dict[Any, Any]]:
        """Environment-specific step transition."""
        raise NotImplementedError

    def reset_env(
        self, key: chex.PRNGKey, params: TEnvParams
    ) -> Tuple[chex.Array, TEnvState]:
        """Environment-specific reset."""
        raise NotImplementedError

    @overload
    def get_obs(
        self,
        state: TEnvState,
        params: TEnvParams,
    ) -> chex.Array:
        """Applies observation function to state."""
        raise NotImplementedError

    @overload
    def get_obs(
        self,
        state: TEnvState,
    ) -> chex.Array:
        """Applies observation function to state."""
        raise NotImplementedError

    @overload
    def get_obs(
        self, state: TEnvState, key: chex.PRNGKey, params: TEnvParams
    ) -> chex.Array:
        """Applies observation function to state."""
        raise NotImplementedError

    def get_obs(
        self,
        state,
        params=None,
        key=None,
    ) -> chex.Array:
        """Applies observation function to state."""
        raise NotImplementedError

    def is_terminal(self, state: TEnvState, params: TEnvParams) -> jnp.ndarray:
        """Check whether state transition is terminal."""
        raise NotImplementedError

    def discount(self, state: TEnvState, params: TEnvParams) -> jnp.ndarray:
        """Return a discount of zero if the episode has terminated."""
        return jax.lax.select(self.is_terminal(state, params), 0.0, 1.0)


# stand-in for `from gymnax.environments import environment`
environment = SimpleNamespace(EnvState=EnvState, EnvParams=EnvParams, Environment=Environment)


# --- gymnax/environments/classic_control/pendulum.py ---
@struct.dataclass
class EnvState(environment.EnvState):
    theta: jnp.ndarray
    theta_dot: jnp.ndarray
    last_u: jnp.ndarray  # Only needed for rendering
    time: int


@struct.dataclass
class EnvParams(environment.EnvParams):
    max_speed: float = 8.0
    max_torque: float = 2.0
    dt: float = 0.05
    g: float = 10.0  # gravity
    m: float = 1.0  # mass
    l: float = 1.0  # length
    max_steps_in_episode: int = 200


class Pendulum(environment.Environment[EnvState, EnvParams]):
    """JAX Compatible version of Pendulum-v0 OpenAI gym environment."""

    def __init__(self):
        super().__init__()
        self.obs_shape = (3,)

    @property
    def default_params(self) -> EnvParams:
        """Default environment parameters for Pendulum-v0."""
        return EnvParams()

    def step_env(
        self,
        key: chex.PRNGKey,
        state: EnvState,
        action: Union[int, float, chex.Array],
        params: EnvParams,
    ) -> Tuple[chex.Array, EnvState, jnp.ndarray, jnp.ndarray, Dict[Any, Any]]:
        """Integrate pendulum ODE and return transition."""
        u = jnp.clip(action, -params.max_torque, params.max_torque)
        reward = -(
            angle_normalize(state.theta) ** 2
            + 0.1 * state.theta_dot**2
            + 0.001 * (u**2)
        )
        reward = reward.squeeze()

        newthdot = state.theta_dot + (
            (
                3 * params.g / (2 * params.l) * jnp.sin(state.theta)
                + 3.0 / (params.m * params.l**2) * u
            )
            * params.dt
        )

        newthdot = jnp.clip(newthdot, -params.max_speed, params.max_speed)
        newth = state.theta + newthdot * params.dt

        # Update state dict and evaluate termination conditions
        state = EnvState(
            theta=newth.squeeze(),
            theta_dot=newthdot.squeeze(),
            last_u=u.reshape(),
            time=state.time + 1,
        )
        done = self.is_terminal(state, params)
        return (
            lax.stop_gradient(self.get_obs(state)),
            lax.stop_gradient(state),
            reward,
            done,
            {"discount": self.discount(state, params)},
        )

    def reset_env(
        self, key: chex.PRNGKey, params: EnvParams
    ) -> Tuple[chex.Array, EnvState]:
        """Reset environment state by sampling theta, theta_dot."""
        high = jnp.array([jnp.pi, 1])
        state = jax.random.uniform(key, shape=(2,), minval=-high, maxval=high)
        state = EnvState(
            theta=state[0], theta_dot=state[1], last_u=jnp.array(0.0), time=0
        )
        return self.get_obs(state), state

    def get_obs(self, state: EnvState, params=None, key=None) -> chex.Array:
        """Return angle in polar coordinates and change."""
        return jnp.array(
            [
                jnp.cos(state.theta),
                jnp.sin(state.theta),
                state.theta_dot,
            ]
        ).squeeze()

    def is_terminal(self, state: EnvState, params: EnvParams) -> jnp.ndarray:
        """Check whether state is terminal."""
        # Check number of steps in episode termination condition
        done = state.time >= params.max_steps_in_episode
        return jnp.array(done)

    @property
    def name(self) -> str:
        """Environment name."""
        return "Pendulum-v1"

    @property
    def num_actions(self) -> int:
        """Number of actions possible in environment."""
        return 1


def angle_normalize(x: jnp.ndarray) -> jnp.ndarray:
    """Normalize the angle - radians."""
    return ((x + jnp.pi) % (2 * jnp.pi)) - jnp.pi


if __name__ == "__main__":
    env = Pendulum()
    env_params = env.default_params

    @jax.jit
    def rollout(key):
        key, key_reset = jax.random.split(key)
        obs, state = env.reset(key_reset, env_params)

        def policy_step(carry, step_key):
            state = carry
            key_act, key_step = jax.random.split(step_key)
            action = jax.random.uniform(key_act, (1,), minval=-2.0, maxval=2.0)
            obs, state, reward, done, _ = env.step(key_step, state, action, env_params)
            return state, (obs, reward, done)

        _, (obs, rewards, dones) = lax.scan(policy_step, state, jax.random.split(key, 250))
        return obs, rewards, dones

    obs, rewards, dones = rollout(jax.random.PRNGKey(0))
    assert obs.shape == (250, 3) and bool(jnp.all(rewards <= 0.0))
    assert int(dones.sum()) == 1 and bool(dones[199])

    # after the auto-reset the pendulum starts again from a fresh random state
    assert not jnp.allclose(obs[200], obs[199])
