# source: https://github.com/mlaux1/rl-blox/blob/4654d39ed88cf081db8d4b0695c7a622ce7ec5c7/rl_blox/algorithm/monte_carlo.py
# observed on jax 0.10.2 CPU: the commit "Use lax.fori in update to allow jit" jits the
#   every-visit Monte Carlo update: the episode length comes from rewards.shape (static),
#   the backward pass over the episode is a lax.fori_loop with traced indices into the
#   Q-table and visit counts (.at[obs, act].add), and the driver loop stays in Python,
#   converting the environment's outputs with int()/float() outside the trace. On a
#   5-state chain explored at random (epsilon 1.0) the Q-values favour moving right. Kept as
#   written: train_monte_carlo, update, and get_epsilon_greedy_action / get_greedy_action
#   of rl_blox/blox/value_policy.py (docstrings left out). Added: a stand-in for a
#   gymnasium discrete environment (a 5-state chain with reset/step) and make_q_table's
#   zeros, and the __main__ driver; the gym.Env and LoggerBase annotations are dropped
#   (gymnasium is not installed; logger is unused).
# gap: other
import jax
import jax.numpy as jnp
import tqdm
from jax import Array, jit, random
from jax.random import PRNGKey
from jax.typing import ArrayLike


@jit
def get_greedy_action(
    key: PRNGKey, q_table: ArrayLike, observation: ArrayLike
) -> Array:
    # TODO: technically correct way is commented out because it is super slow
    # true_indices = q_table[observation] == q_table[observation].max()
    # return random.choice(key, jnp.flatnonzero(true_indices))
    return jnp.argmax(q_table[observation])


def get_epsilon_greedy_action(
    key: PRNGKey, q_table: ArrayLike, observation: ArrayLike, epsilon: float
) -> Array:
    key, subkey = random.split(key)
    roll = random.uniform(subkey)
    if roll < epsilon:
        return random.choice(key, jnp.arange(len(q_table[observation])))
    else:
        return get_greedy_action(key, q_table, observation)


class ChainEnv:
    # stand-in for a gymnasium discrete environment: action 1 moves right, 0 left;
    # reaching state 4 gives reward 1 and terminates, 20 steps truncate
    def reset(self):
        self.s, self.t = 0, 0
        return self.s, {}

    def step(self, action):
        self.t += 1
        self.s = min(self.s + 1, 4) if action == 1 else max(self.s - 1, 0)
        terminated = self.s == 4
        return self.s, float(terminated), terminated, self.t >= 20, {}


def train_monte_carlo(
    env,
    q_table: ArrayLike,
    total_timesteps: int,
    n_visits: ArrayLike | None = None,
    epsilon: float = 0.5,
    gamma: float = 0.99,
    seed: int = 1,
    logger=None,
) -> ArrayLike:
    key = jax.random.key(seed)

    observation, _ = env.reset()

    if n_visits is None:
        n_visits = jnp.zeros_like(q_table)

    obs_arr = jnp.empty((total_timesteps,), dtype=jnp.int32)
    act_arr = jnp.empty((total_timesteps,), dtype=jnp.int32)
    rew_arr = jnp.empty((total_timesteps,), dtype=jnp.float32)

    start_t = 0

    for i in tqdm.trange(total_timesteps):
        key, action_key = jax.random.split(key)
        action = get_epsilon_greedy_action(
            action_key, q_table, observation, epsilon
        )

        obs_arr = obs_arr.at[i].set(int(observation))
        observation, reward, terminated, truncated, info = env.step(int(action))

        act_arr = act_arr.at[i].set(int(action))
        rew_arr = rew_arr.at[i].set(float(reward))

        if terminated or truncated:
            q_table, n_visits = update(
                q_table,
                n_visits,
                rew_arr[start_t : i + 1],
                obs_arr[start_t : i + 1],
                act_arr[start_t : i + 1],
                gamma,
            )
            observation, _ = env.reset()
            start_t = i + 1
    return q_table, n_visits


@jax.jit
def update(
    q_table: ArrayLike,
    n_visits: ArrayLike,
    rewards: jnp.ndarray,
    observations: jnp.ndarray,
    actions: jnp.ndarray,
    gamma: float,
) -> tuple[jnp.ndarray, jnp.ndarray]:
    ep_len = rewards.shape[0]

    def _update_body(i, state):
        q_table, n_visits, ep_return = state
        idx = ep_len - 1 - i

        obs = observations[idx]
        act = actions[idx]
        rew = rewards[idx]

        ep_return = rew + gamma * ep_return
        n_visits = n_visits.at[obs, act].add(1)
        pred_error = ep_return - q_table[obs, act]
        q_table = q_table.at[obs, act].add(
            1.0 / n_visits[obs, act] * pred_error
        )

        return (q_table, n_visits, ep_return)

    q_table, n_visits, _ = jax.lax.fori_loop(
        0, ep_len, _update_body, (q_table, n_visits, 0.0)
    )

    return q_table, n_visits


if __name__ == "__main__":
    env = ChainEnv()
    q_table = jnp.zeros((5, 2), dtype=jnp.float32)  # make_q_table(env)
    q_table, n_visits = train_monte_carlo(env, q_table, total_timesteps=600, epsilon=1.0)
    assert float(n_visits.sum()) > 0
    assert all(int(jnp.argmax(q_table[s])) == 1 for s in range(4)), q_table
    print(q_table)
