# source: https://github.com/MichaelTMatthews/Craftax/commit/7c31a1dd784bd28e1d3795c2bac7945ea6bf62cc
#   ("Fix bug in optimistic reset wrapper": `reset_indexes.at[being_reset].set(...)` becomes
#   `reset_indexes = reset_indexes.at[being_reset].set(...)`); the code is
#   craftax/environment_base/wrappers.py before that commit.
# observed on jax 0.10.2 CPU: the `.at[being_reset].set(...)` line in the jitted step returns
#   an updated copy that is thrown away, so reset_indexes stays
#   `arange(num_resets).repeat(reset_ratio)`: the two environments that finish in the same
#   step (workers 2 and 3, which share a reset slot) both restart from the same reset state,
#   although two distinct reset states were drawn. Kept as Craftax wrote them: GymnaxWrapper
#   and OptimisticResetVecEnvWrapper. Added: gymnax is not installed, so `environment` is a
#   stand-in namespace for its type annotations, and a one-number environment whose reset
#   draws a uniform position and whose step ends the episode when the action is 1 stands in
#   for Craftax; `jax.tree_map` is spelled `jax.tree.map`.
# gap: other
import jax
import jax.numpy as jnp
import chex
import numpy as np
from flax import struct
from functools import partial
from typing import Optional, Tuple, Union, Any


class environment:
    # stand-in for gymnax.environments.environment (type annotations only)
    Environment = Any
    EnvParams = Any
    EnvState = Any


@struct.dataclass
class PointState:
    pos: jax.Array


class PointEnvStandIn:
    # stand-in environment: reset draws a position, action 1 ends the episode
    def reset(self, key, params=None):
        pos = jax.random.uniform(key, ())
        return pos[None], PointState(pos=pos)

    def step(self, key, state, action, params=None):
        pos = state.pos + 0.01
        done = action == 1
        return pos[None], PointState(pos=pos), jnp.float32(0.0), done, {}


class GymnaxWrapper(object):
    """Base class for Gymnax wrappers."""

    def __init__(self, env):
        self._env = env

    # provide proxy access to regular attributes of wrapped object
    def __getattr__(self, name):
        return getattr(self._env, name)


class OptimisticResetVecEnvWrapper(GymnaxWrapper):
    """
    Provides efficient 'optimistic' resets.
    The wrapper also necessarily handles the batching of environment steps and resetting.
    reset_ratio: the number of environment workers per environment reset.  Higher means more efficient but a higher
    chance of duplicate resets.
    """

    def __init__(self, env: environment.Environment, num_envs: int, reset_ratio: int):
        super().__init__(env)

        self.num_envs = num_envs
        self.reset_ratio = reset_ratio
        assert (
            num_envs % reset_ratio == 0
        ), "Reset ratio must perfectly divide num envs."
        self.num_resets = self.num_envs // reset_ratio

        self.reset_fn = jax.vmap(self._env.reset, in_axes=(0, None))
        self.step_fn = jax.vmap(self._env.step, in_axes=(0, 0, 0, None))

    @partial(jax.jit, static_argnums=(0, 2))
    def reset(
        self, rng, params: Optional[environment.EnvParams] = None
    ) -> Tuple[chex.Array, environment.EnvState]:
        rng, _rng = jax.random.split(rng)
        rngs = jax.random.split(_rng, self.num_envs)
        obs, env_state = self.reset_fn(rngs, params)
        return obs, env_state

    @partial(jax.jit, static_argnums=(0, 4))
    def step(self, rng, state, action, params=None):

        rng, _rng = jax.random.split(rng)
        rngs = jax.random.split(_rng, self.num_envs)
        obs_st, state_st, reward, done, info = self.step_fn(rngs, state, action, params)

        rng, _rng = jax.random.split(rng)
        rngs = jax.random.split(_rng, self.num_resets)
        obs_re, state_re = self.reset_fn(rngs, params)

        rng, _rng = jax.random.split(rng)
        reset_indexes = jnp.arange(self.num_resets).repeat(self.reset_ratio)

        being_reset = jax.random.choice(
            _rng,
            jnp.arange(self.num_envs),
            shape=(self.num_resets,),
            p=done,
            replace=False,
        )
        reset_indexes.at[being_reset].set(jnp.arange(self.num_resets))  # expect: JIT503

        obs_re = obs_re[reset_indexes]
        state_re = jax.tree.map(lambda x: x[reset_indexes], state_re)

        # Auto-reset environment based on termination
        def auto_reset(done, state_re, state_st, obs_re, obs_st):
            state = jax.tree.map(
                lambda x, y: jax.lax.select(done, x, y), state_re, state_st
            )
            obs = jax.lax.select(done, obs_re, obs_st)

            return state, obs

        state, obs = jax.vmap(auto_reset)(done, state_re, state_st, obs_re, obs_st)

        return obs, state, reward, done, info


if __name__ == "__main__":
    env = OptimisticResetVecEnvWrapper(PointEnvStandIn(), num_envs=4, reset_ratio=2)
    key_reset, key_step = jax.random.split(jax.random.PRNGKey(0))
    obs, state = env.reset(key_reset)
    action = jnp.array([0, 0, 1, 1])  # workers 2 and 3 finish their episodes
    obs, state, reward, done, info = env.step(key_step, state, action)
    # observed: line 110 discards its update: both finished workers restart from one reset state
    assert bool(done[2]) and bool(done[3])
    assert float(state.pos[2]) == float(state.pos[3]), state.pos
    print("finished workers 2 and 3 restart at", state.pos[2], state.pos[3])
