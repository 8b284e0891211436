# source: https://github.com/keraJLi/rejax/commit/bbcebb89306c105a825c064b5dc1d4789ae18526
#   (src/rejax/compat/jumanji2gymnax.py after "make jumanji2gymnax env jittable")
# observed on jax 0.10.2 CPU: `num_entries` computes the flattened size with NumPy on the
#   space's static shape, so under jax.jit PPO's initialize_network_params builds its (1, 20)
#   observation placeholder and runs clean. Kept verbatim: num_entries (as the fix writes it),
#   flatten_obs and FlattenObsWrapper (its jitted step/reset are not called), and the first
#   two lines of rejax's PPO.initialize_network_params (ppo.py at the parent commit).
#   Stand-ins (gymnax, jumanji and rejax are not installed): gymnax's `spaces.Box`/`Dict`/
#   `Discrete` with their constructors only; a converted Jumanji environment whose observation
#   space is a Dict of a (4, 4) board and a (4,) mask, as Jumanji2GymnaxEnv.observation_space
#   builds it; PPO reduced to the env, its params and initialize_network_params, which rejax's
#   jitted train reaches through init_state.
# gap: omnistaging
from functools import partial

import chex
import jax
from jax import numpy as jnp
import numpy as np


class spaces:  # stand-in for gymnax.environments.spaces (constructors only)
    class Space:
        pass

    class Discrete:
        def __init__(self, num_categories):
            self.num_categories = num_categories
            self.shape = ()

    class Box:
        def __init__(self, low, high, shape, dtype=jnp.float32):
            self.low, self.high, self.shape, self.dtype = low, high, shape, dtype

    class Dict:
        def __init__(self, spaces):
            self.spaces = spaces


GymnaxEnv = object


def num_entries(space: spaces.Space) -> int:
    if isinstance(space, spaces.Discrete):
        return space.num_categories
    elif isinstance(space, spaces.Box):
        return np.prod(np.array(space.shape)).astype(int)
    elif isinstance(space, spaces.Dict):
        return sum(num_entries(subspace) for subspace in space.spaces.values())
    raise ValueError(f"Unsupported space {space}")


def flatten_obs(obs):
    if isinstance(obs, (int, float, bool)):
        return jnp.array([obs], dtype=jnp.float32)
    elif isinstance(obs, chex.Array):
        return obs.reshape(-1).astype(jnp.float32)
    else:
        flat_obs = jax.tree.map(flatten_obs, obs)
        leaves = jax.tree.leaves(flat_obs)
        return jnp.concatenate(leaves)


class ConvertedJumanjiEnvStandIn:
    # stand-in for Jumanji2GymnaxEnv around a jumanji environment with a board and a mask
    default_params = None

    def observation_space(self, params):
        return spaces.Dict({
            "board": spaces.Box(low=0, high=1, shape=(4, 4), dtype=jnp.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(4,), dtype=jnp.float32),
        })


class FlattenObsWrapper(GymnaxEnv):
    def __init__(self, env):
        self.env = env

    def __getattribute__(self, name):
        if name in ["env", "reset", "step", "observation_space", "get_obs"]:
            return super().__getattribute__(name)
        return self.env.__getattribute__(name)

    def observation_space(self, params):
        space = self.env.observation_space(params)
        size = num_entries(space)
        return spaces.Box(-jnp.inf, jnp.inf, (size,), dtype=jnp.float32)

    def get_obs(self, state):
        raise NotImplementedError

    @partial(jax.jit, static_argnums=(0,))
    def step(self, key, state, action, params):
        obs, state, reward, done, info = self.env.step(key, state, action, params)
        obs = flatten_obs(obs)
        return obs, state, reward, done, info

    @partial(jax.jit, static_argnums=(0,))
    def reset(self, key, params=None):
        obs, state = self.env.reset(key, params)
        obs = flatten_obs(obs)
        return obs, state


class PPO:
    # stand-in for rejax.PPO, reduced to what initialize_network_params reads
    def __init__(self, env, env_params):
        self.env, self.env_params = env, env_params

    def initialize_network_params(self, rng):
        rng, rng_actor, rng_critic = jax.random.split(rng, 3)
        obs_ph = jnp.empty([1, *self.env.observation_space(self.env_params).shape])
        return obs_ph


if __name__ == "__main__":
    env = FlattenObsWrapper(ConvertedJumanjiEnvStandIn())
    algo = PPO(env, env.default_params)
    obs_ph = jax.jit(algo.initialize_network_params)(jax.random.key(0))
    assert obs_ph.shape == (1, 20)
