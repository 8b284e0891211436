# source: https://github.com/theovincent/i-DQN/issues/13 (code: https://github.com/theovincent/i-DQN/blob/57c070e8ac5802fc8be92d68c77a2c95ae64c9af/idqn/environments/atari.py, idqn/sample_collection/exploration.py, idqn/networks/base.py, idqn/networks/dqn.py)
# observed on jax 0.10.2 CPU: see the `# observed:` line
# gap: stale-state-attributes
# assembled from four files of the repository at the same commit: EpsilonGreedySchedule is complete; BaseQ/DQN keep
#   only __init__ (trimmed), random_action and best_action; AtariEnv keeps only collect_one_sample.
# stand-ins (not in the repository): the gym/ALE environment (reset/step/observation/state), a one-layer flax network,
#   `scale`, and a replay buffer with a no-op `add`.
# renamed old APIs: jax.random.PRNGKeyArray annotations -> jax.Array
# observed: line 102 the key handed to random_action is exploration_schedule.key, the carry key that the next explore() call splits again: the same key is consumed by jax.random.choice and by jax.random.split (checked on 29 consecutive steps)
from functools import partial
from typing import Dict, Tuple

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax.core import FrozenDict


class EpsilonGreedySchedule:
    def __init__(
        self,
        starting_eps: float,
        ending_eps: float,
        duration_eps: int,
        key: jax.Array,
        current_exploration_step: int,
    ) -> None:
        self.epsilon_schedule = optax.linear_schedule(starting_eps, ending_eps, duration_eps)
        self.current_exploration_step = current_exploration_step
        self.key = key

    def explore(self) -> bool:
        self.current_exploration_step += 1
        self.key, key = jax.random.split(self.key)

        return self.explore_(key, self.current_exploration_step)

    @partial(jax.jit, static_argnames="self")
    def explore_(self, key, exploration_step):
        return jax.random.uniform(key) < self.epsilon_schedule(exploration_step)


def scale(state: jnp.ndarray) -> jnp.ndarray:  # stand-in
    return state / 255.0


class BaseQ:
    def __init__(self, q_inputs: dict, n_actions: int, network: nn.Module, network_key: jax.Array) -> None:
        self.n_actions = n_actions
        self.network = network
        self.network_key = network_key
        self.params = self.network.init(self.network_key, **q_inputs)

    @partial(jax.jit, static_argnames="self")
    def random_action(self, key: jax.Array) -> jnp.int8:
        return jax.random.choice(key, jnp.arange(self.n_actions)).astype(jnp.int8)


class DQN(BaseQ):
    @partial(jax.jit, static_argnames="self")
    def best_action(self, params: FrozenDict, state: jnp.ndarray, key: jax.Array) -> jnp.int8:
        return jnp.argmax(self.network.apply(params, scale(state))).astype(jnp.int8)


class AtariEnv:
    # stand-in environment: a random 8x8x4 state, reward 0, episodes of 10 steps
    def __init__(self, n_actions: int = 6) -> None:
        self.n_actions = n_actions
        self.rng = np.random.default_rng(0)
        self.reset()

    @property
    def observation(self) -> np.ndarray:
        return np.copy(self.state_[:, :, -1])

    @property
    def state(self) -> np.ndarray:
        return jnp.array(self.state_, dtype=jnp.float32)

    def reset(self) -> None:
        self.n_steps = 0
        self.state_ = self.rng.integers(0, 255, (8, 8, 4), dtype=np.uint8)

    def step(self, action) -> Tuple[float, bool, Dict]:
        self.n_steps += 1
        self.state_ = self.rng.integers(0, 255, (8, 8, 4), dtype=np.uint8)
        return 0.0, self.n_steps >= 10, {}

    def collect_one_sample(
        self,
        q: BaseQ,
        q_params: Dict,
        horizon: int,
        replay_buffer,
        exploration_schedule: EpsilonGreedySchedule,
    ) -> Tuple[float, bool]:
        observation = self.observation

        if exploration_schedule.explore():
            action = q.random_action(exploration_schedule.key)  # expect: JIT502
        else:
            action = q.best_action(q_params, self.state, exploration_schedule.key)  # tolerate: JIT502

        reward, terminal, _ = self.step(action)

        episode_end = terminal or self.n_steps >= horizon
        replay_buffer.add(observation, action, reward, terminal, episode_end=episode_end)

        if episode_end:
            self.reset()

        return reward, episode_end


class _Buffer:  # stand-in
    def add(self, *args, **kwargs):
        pass


class _Net(nn.Module):  # stand-in network
    n_actions: int

    @nn.compact
    def __call__(self, state):
        return nn.Dense(self.n_actions)(state.reshape(-1))


if __name__ == "__main__":
    env = AtariEnv(n_actions=6)
    q = DQN({"state": jnp.zeros((8, 8, 4))}, 6, _Net(6), jax.random.PRNGKey(0))
    schedule = EpsilonGreedySchedule(1.0, 0.01, 1000, jax.random.PRNGKey(1), 0)

    # record which key each random action consumed
    used = []
    original = q.random_action

    def recording_random_action(key):
        used.append(key)
        return original(key)

    q.random_action = recording_random_action
    carry_keys = []
    for _ in range(30):
        env.collect_one_sample(q, q.params, 27_000, _Buffer(), schedule)
        carry_keys.append(schedule.key)
    assert len(used) == 30  # epsilon is ~1 at the start: every step explores
    for t in range(29):
        # the key consumed by choice() at step t is split again to form the carry key of step t+1
        next_carry, _ = jax.random.split(used[t])
        assert bool(jnp.all(next_carry == carry_keys[t + 1]))
        assert bool(jnp.all(used[t] == carry_keys[t]))
    print("random_action consumed the carry key that explore() split again, on all 29 checked steps")
