# source: https://github.com/smearle/pcgrl-jax/blob/0eff9d93033c3133318a00f98234921f847ad522/envs/pcgrl_env.py (PCGRLEnvParams, PCGRLEnv.step_env; Environment.step from envs/env.py at the same commit); fixed in https://github.com/smearle/pcgrl-jax/commit/ffd3dab9d2e8035e5dfaf60fb4eedfbe8ed369fd "Fix issue where EnvParams (flax dataclass) was being jitted as a static arg, resulting in error with newer versions of jax" (static_argnums=(0, 4) -> (0))
# observed on jax 0.10.2 CPU: ValueError: Non-hashable static arguments are not supported ... TypeError: unhashable type: 'DynamicJaxprTracer', raised at line 85 (the self.step_env call inside the jitted Environment.step)
# gap: static-hashability
# (abridged: gymnax's Environment base class replaced by a plain class; PCGRLEnvState keeps only the fields step_env uses;
#  the representation / problem objects (self.rep, self.prob) are small stand-ins: rep.step writes the action at the
#  scan position, prob.step returns a reward of 1.0; reset_env is a stand-in that builds an empty 4x4 map;
#  get_obs returns the map; map_shape is (4, 4); __main__ block added)
# The bug: env_params is declared static in step_env, but Environment.step is itself jitted with params traced, so
# step_env receives a PCGRLEnvParams whose fields are tracers: hashing it for the static-argument cache fails.
import math
from functools import partial
from typing import Optional, Tuple, Union

import chex
import jax
import jax.numpy as jnp
import numpy as np
from flax import struct


@struct.dataclass
class PCGRLEnvParams:
    multiagent: bool = False
    problem: int = 0
    representation: int = 0
    map_shape: Tuple[int, int] = (4, 4)
    act_shape: Tuple[int, int] = (1, 1)
    rf_shape: Tuple[int, int] = (31, 31)
    static_tile_prob: Optional[float] = 0.0
    n_freezies: int = 0
    n_agents: int = 1
    max_board_scans: float = 3.0
    ctrl_metrics: Tuple = ()
    change_pct: float = -1.0
    randomize_map_shape: bool = False
    empty_start: bool = False
    full_start: bool = False
    a_freezer: bool = False
    reward_freq: int = 1
    pinpoints: bool = False
    flatten_obs: bool = False


@struct.dataclass
class PCGRLEnvState:
    env_map: chex.Array
    static_map: chex.Array
    rep_state: chex.Array
    prob_state: Optional[chex.Array] = None
    step_idx: int = 0
    reward: np.float32 = 0.0
    pct_changed: np.float32 = 0.0
    done: bool = False
    queued_state: Optional[chex.Array] = None


class _StandInRep:
    max_steps = 48

    def step(self, env_map, action, rep_state, step_idx):
        r, c = jnp.divmod(rep_state, env_map.shape[1])
        env_map = env_map.at[r, c].set(action.reshape(()))
        return env_map, (rep_state + 1) % env_map.size


class _StandInProb:
    def step(self, env_map, prob_state):
        return 1.0, prob_state


class Environment:
    @partial(jax.jit, static_argnums=(0,))
    def step(
        self,
        key: chex.PRNGKey,
        state,
        action: Union[int, float],
        params=None,
    ):
        """Performs step transitions in the environment."""
        # Use default env parameters if no others specified
        if params is None:
            params = self.default_params
        key, key_reset = jax.random.split(key)
        obs_st, state_st, reward, done, info = self.step_env(  # expect: JIT302
            key, state, action, params
        )
        obs_re, state_re = self.reset_env(key_reset, params, queued_state=state.queued_state)
        # Auto-reset environment based on termination
        state = jax.tree.map(
            lambda x, y: jax.lax.select(done, x, y), state_re, state_st
        )
        # obs = jax.lax.select(done, obs_re, obs_st)
        # Generalizing this to flax dataclass observations
        obs = jax.tree.map(
            lambda x, y: jax.lax.select(done, x, y), obs_re, obs_st
        )
        return obs, state, reward, done, info


class PCGRLEnv(Environment):
    pinpoints = False

    def __init__(self, env_params: PCGRLEnvParams):
        self.multiagent = env_params.multiagent
        self.map_shape = env_params.map_shape
        self.rep = _StandInRep()
        self.prob = _StandInProb()
        self.default_params = env_params

    @partial(jax.jit, static_argnames=('self',))
    def reset_env(self, rng, env_params: PCGRLEnvParams, queued_state=None):
        env_map = jnp.zeros(self.map_shape, dtype=jnp.int32)
        env_state = PCGRLEnvState(env_map=env_map, static_map=jnp.zeros(self.map_shape, dtype=bool),
                                  rep_state=jnp.int32(0), prob_state=jnp.float32(0.0),
                                  step_idx=0, done=False, queued_state=queued_state)
        return self.get_obs(env_map), env_state

    def get_obs(self, env_map):
        return env_map

    @partial(jax.jit, static_argnums=(0, 4))
    def step_env(self, rng, env_state: PCGRLEnvState, action, env_params: PCGRLEnvParams):
        action = action[..., None]
        # if self.n_agents == 1:
        if not self.multiagent:
            action = action[0]
        env_map, rep_state = self.rep.step(
            env_map=env_state.env_map, action=action,
            rep_state=env_state.rep_state, step_idx=env_state.step_idx
        )
        env_map = jnp.where(env_state.static_map == 1,
                            env_state.env_map, env_map,
        )
        n_tiles_changed = jnp.sum(jnp.where(env_map != env_state.env_map, 1, 0))
        map_changed = n_tiles_changed > 0
        pct_changed = n_tiles_changed / math.prod(self.map_shape)
        pct_changed = env_state.pct_changed + pct_changed
        reward, prob_state = jax.lax.cond(
            jnp.logical_and(map_changed, (env_state.step_idx % env_params.reward_freq == 0)),
            lambda env_map: self.prob.step(env_map, env_state.prob_state),
            lambda _: (0., env_state.prob_state),
            env_map,
        )
        obs = self.get_obs(env_map)
        done = self.is_terminal(env_state, env_params)
        step_idx = env_state.step_idx + 1
        env_state = PCGRLEnvState(
            env_map=env_map, static_map=env_state.static_map,
            rep_state=rep_state, done=done, reward=reward,
            prob_state=prob_state, step_idx=step_idx, pct_changed=pct_changed, queued_state=env_state.queued_state)

        return (
            jax.lax.stop_gradient(obs),
            jax.lax.stop_gradient(env_state),
            reward,
            done,
            {"discount": self.discount(env_state, env_params)},
        )

    def is_terminal(self, state: PCGRLEnvState, params: PCGRLEnvParams) \
            -> bool:
        """Check whether state is terminal."""
        done = state.step_idx >= (self.rep.max_steps - 1)
        done = jnp.logical_or(done, jnp.logical_and(
            params.change_pct > 0, state.pct_changed >= params.change_pct))
        return done

    def discount(self, state, params) -> float:
        return jax.lax.select(self.is_terminal(state, params), 0.0, 1.0)


if __name__ == "__main__":
    env_params = PCGRLEnvParams()
    env = PCGRLEnv(env_params)
    rng = jax.random.PRNGKey(0)
    obs, env_state = env.reset_env(rng, env_params)
    action = jnp.array([[[1]]], dtype=jnp.int32)
    obs, env_state, reward, done, info = env.step(rng, env_state, action, env_params)
    print(reward, done)
