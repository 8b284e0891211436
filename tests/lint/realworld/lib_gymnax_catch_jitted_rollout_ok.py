# source: https://github.com/RobertTLange/gymnax/blob/88fef6978d3d9966828256bfc27f5489b57f7757/gymnax/environments/bsuite/catch.py
# observed on jax 0.10.2 CPU: a rollout of 30 steps with gymnax's jitted reset and step, the
#   actions drawn from the action space with a fresh key per step, runs clean; the ball
#   falls one row per step and the episode resets itself when it reaches the paddle's row.
#   Kept verbatim: EnvState, EnvParams, Catch (render, the observation and state spaces left
#   out, with matplotlib) and sample_init_state. Stand-ins (gymnax is not installed):
#   `environment.Environment`/`EnvState`/`EnvParams` are gymnax's base classes at the same
#   commit, reduced to default_params, the jitted step/reset and discount (`jax.tree_map`,
#   removed, spelled `jax.tree.map`); `spaces.Discrete` is gymnax's, with sample only.
# gap: exemption-vs-JAX
import functools
from typing import Any, Dict, Generic, Optional, Tuple, TypeVar, Union

import chex
from flax import struct
import jax
from jax import lax
import jax.numpy as jnp

TEnvState = TypeVar("TEnvState")
TEnvParams = TypeVar("TEnvParams")


# --- stand-in: gymnax/environments/environment.py at 88fef69 (reduced) ---
class _Base:
    @struct.dataclass
    class EnvState:
        time: int

    @struct.dataclass
    class EnvParams:
        max_steps_in_episode: int = 1

    class Environment(Generic[TEnvState, TEnvParams]):
        @property
        def default_params(self):
            return _Base.EnvParams()

        @functools.partial(jax.jit, static_argnums=(0,))
        def step(self, key, state, action, params=None):
            if params is None:
                params = self.default_params
            key, key_reset = jax.random.split(key)
            obs_st, state_st, reward, done, info = self.step_env(key, state, action, params)
            obs_re, state_re = self.reset_env(key_reset, params)
            state = jax.tree.map(
                lambda x, y: jax.lax.select(done, x, y), state_re, state_st
            )
            obs = jax.lax.select(done, obs_re, obs_st)
            return obs, state, reward, done, info

        @functools.partial(jax.jit, static_argnums=(0,))
        def reset(self, key, params=None):
            if params is None:
                params = self.default_params
            obs, state = self.reset_env(key, params)
            return obs, state

        def discount(self, state, params):
            return jax.lax.select(self.is_terminal(state, params), 0.0, 1.0)


class _Spaces:
    class Discrete:
        """Minimal jittable class for discrete gymnax spaces."""

        def __init__(self, num_categories: int):
            assert num_categories >= 0
            self.n = num_categories
            self.shape = ()
            self.dtype = jnp.int_

        def sample(self, rng: chex.PRNGKey) -> chex.Array:
            """Sample random action uniformly from set of categorical choices."""
            return jax.random.randint(
                rng, shape=self.shape, minval=0, maxval=self.n
            ).astype(self.dtype)


environment = _Base
spaces = _Spaces


# --- gymnax/environments/bsuite/catch.py at 88fef69 ---
@struct.dataclass
class EnvState(environment.EnvState):
    ball_x: chex.Array
    ball_y: chex.Array
    paddle_x: int
    paddle_y: int
    prev_done: bool
    time: int


@struct.dataclass
class EnvParams(environment.EnvParams):
    max_steps_in_episode: int = 1000


class Catch(environment.Environment[EnvState, EnvParams]):
    """JAX Compatible version of Catch bsuite environment."""

    def __init__(self, rows: int = 10, columns: int = 5):
        super().__init__()
        self.rows = rows
        self.columns = columns

    @property
    def default_params(self) -> EnvParams:
        # Default environment parameters
        return EnvParams()

    def step_env(
        self,
        key: chex.PRNGKey,
        state: EnvState,
        action: Union[int, float, chex.Array],
        params: EnvParams,
    ) -> Tuple[chex.Array, EnvState, jnp.ndarray, jnp.ndarray, Dict[Any, Any]]:
        """Perform single timestep state transition."""
        # Sample new init state each step & use if there was a reset!
        ball_x, ball_y, paddle_x, paddle_y = sample_init_state(
            key, self.rows, self.columns
        )
        prev_done = state.prev_done

        # Move the paddle + drop the ball.
        dx = action - 1  # [-1, 0, 1] = Left, no-op, right.
        paddle_x = jax.lax.select(
            prev_done,
            paddle_x,
            jnp.clip(state.paddle_x + dx, 0, self.columns - 1),
        )
        ball_y = jax.lax.select(prev_done, ball_y, state.ball_y + 1)
        ball_x = jax.lax.select(prev_done, ball_x, state.ball_x)
        paddle_y = jax.lax.select(prev_done, paddle_y, state.paddle_y)

        # Rewrite reward as boolean multiplication
        prev_done = ball_y == paddle_y
        catched = paddle_x == ball_x
        reward = prev_done * jax.lax.select(catched, 1.0, -1.0)

        state = state.replace(
            ball_x=ball_x,
            ball_y=ball_y,
            paddle_x=paddle_x,
            paddle_y=paddle_y,
            prev_done=prev_done,
            time=state.time + 1,
        )

        # Check number of steps in episode termination condition
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
        """Reset environment state by sampling initial position."""
        ball_x, ball_y, paddle_x, paddle_y = sample_init_state(
            key, self.rows, self.columns
        )
        # Last two state vector correspond to timestep and done
        state = EnvState(
            ball_x=ball_x,
            ball_y=ball_y,
            paddle_x=paddle_x,
            paddle_y=paddle_y,
            prev_done=False,
            time=0,
        )
        return self.get_obs(state), state

    def get_obs(self, state: EnvState, params=None, key=None) -> chex.Array:
        """Return observation from raw state trafo."""
        obs = jnp.zeros((self.rows, self.columns))
        obs = obs.at[state.ball_y, state.ball_x].set(1.0)
        obs = obs.at[state.paddle_y, state.paddle_x].set(1.0)
        return obs

    def is_terminal(self, state: EnvState, params: EnvParams) -> jnp.ndarray:
        """Check whether state is terminal."""
        done_loose = state.ball_y == self.rows - 1
        done_steps = state.time >= params.max_steps_in_episode
        done = jnp.logical_or(done_loose, done_steps)
        return done

    @property
    def name(self) -> str:
        """Environment name."""
        return "Catch-bsuite"

    @property
    def num_actions(self) -> int:
        """Number of actions possible in environment."""
        return 3

    def action_space(self, params: Optional[EnvParams] = None) -> spaces.Discrete:
        """Action space of the environment."""
        return spaces.Discrete(3)


def sample_init_state(
    key: chex.PRNGKey, rows: int, columns: int
) -> Tuple[jnp.ndarray, jnp.ndarray, int, int]:
    """Sample a new initial state."""
    ball_x = jax.random.randint(key, shape=(), minval=0, maxval=columns)
    ball_y = 0
    paddle_x = columns // 2
    paddle_y = rows - 1
    return ball_x, jnp.array(ball_y), paddle_x, paddle_y


if __name__ == "__main__":
    env = Catch()
    env_params = env.default_params
    rng = jax.random.key(0)
    rng, key_reset = jax.random.split(rng)
    obs, state = env.reset(key_reset, env_params)
    ball_rows = [int(state.ball_y)]
    for t in range(30):
        rng, key_act, key_step = jax.random.split(rng, 3)
        action = env.action_space(env_params).sample(key_act)
        obs, state, reward, done, _ = env.step(key_step, state, action, env_params)
        ball_rows.append(int(state.ball_y))
    assert obs.shape == (10, 5)
    assert max(ball_rows) <= 9 and 0 in ball_rows[1:]
