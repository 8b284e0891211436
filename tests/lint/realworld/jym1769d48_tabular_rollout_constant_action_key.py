# source: https://github.com/RPegoud/jym/blob/1769d4887de5bc032011fe5d0114aa339c5771e1/jym/utils/rollouts/tabular_rollouts.py
# observed on jax 0.10.2 CPU: see the `# observed:` lines below; as in the repo's notebooks/tabular/grid_world/q_learning_gridworld.ipynb, `key` only seeds the (deterministic) env reset, so two seeds give the very same trajectory and Q-table
# gap: other
# observed: line 46 with typed keys and jax_debug_key_reuse, the policy call raises KeyReuseError "In random_split, argument 0 is already consumed" (the key was already drawn from by random.uniform)
# observed: line 54 the returned key is the one the action was drawn with: random.choice(next_key, arange(4)) reproduces the action, and the rollout draws from it again next step
# observed: line 197 tabular_rollout with PRNGKey(1) and PRNGKey(2) returns identical observations and Q-tables (all action keys come from PRNGKey(0))
# also from the same commit: jym/policies/epsilon_greedy.py (EpsilonGreedy), jym/agents/q_learning.py (Q_learning), jym/envs/grids/grid_world.py (GridWorld)
# changes: BasePolicy/BaseTabularAgent/BaseEnv base classes inlined (a plain `__call__` and the two attributes they set); GridWorld keeps reset/step and drops batch_* and __repr__; Q_learning drops batch_update; EpsilonGreedy drops batch_call; the `@loop_tqdm(TIME_STEPS)` progress-bar decorator is dropped; imports gathered at the top; `__main__` block added
from functools import partial

import jax.numpy as jnp
import jax.random as random
from jax import jit, lax
from jax import random as jrandom


class EpsilonGreedy:
    """
    Epsilon-Greedy policy with random tie-breaks
    """

    def __init__(self, epsilon):
        self.epsilon = epsilon

    def __call__(self, *args, **kwargs):
        return self.call(*args, **kwargs)

    @partial(jit, static_argnums=(0, 2))
    def call(self, key, n_actions, state, q_values):
        def _random_action_fn(subkey):
            return random.choice(subkey, jnp.arange(n_actions))

        def _greedy_action_fn(subkey):
            """
            Selects the greedy action with random tie-break
            If multiple Q-values are equal, sample uniformly from their indexes
            """
            q = q_values.at[tuple(state)].get()
            q_max = jnp.max(q, axis=-1)
            q_max_mask = jnp.equal(q, q_max)
            p = jnp.divide(q_max_mask, q_max_mask.sum())
            choice = random.choice(subkey, jnp.arange(n_actions), p=p)
            return jnp.int32(choice)

        explore = random.uniform(key) < self.epsilon
        key, subkey = random.split(key)  # expect: JIT502
        action = lax.cond(
            explore,
            _random_action_fn,
            _greedy_action_fn,
            operand=subkey,
        )

        return action, subkey  # expect: JIT502


class Q_learning:
    def __init__(self, discount, learning_rate) -> None:
        self.discount = discount
        self.learning_rate = learning_rate

    @partial(jit, static_argnums=(0,))
    def update(self, state, action, reward, done, next_state, q_values):
        target = q_values[tuple(jnp.append(state, action))]
        target += self.learning_rate * (
            reward + self.discount * jnp.max(q_values[tuple(next_state)]) - target
        )
        return q_values.at[tuple(jnp.append(state, action))].set(target)


class GridWorld:
    def __init__(
        self,
        initial_state: jnp.array,
        goal_state: jnp.array,
        grid_size: jnp.array,
        stochastic_reset: bool = False,
    ) -> None:
        self.initial_state = initial_state
        self.goal_state = goal_state
        self.grid_size = grid_size
        self.stochastic_reset = stochastic_reset
        self.movements = jnp.array([[0, 1], [1, 0], [0, -1], [-1, 0]])

    def _get_obs(self, state):
        """
        The state is fully observable, it doesn't require processing
        """
        return state

    @partial(jit, static_argnums=0)
    def _reset(self, key):
        """
        Resets an agent at the end of an episode
        If stochastic_reset is True, uniformly sample an initial state
        from a set of coordinates
        """
        key, sub_key = random.split(key)

        def _deterministic_reset():
            return self.initial_state, sub_key

        def _stochastic_reset():
            stochastic_state = random.randint(
                key,
                (2,),
                minval=jnp.array([3, 3]),
                maxval=jnp.array([self.grid_size[0], self.grid_size[1]]),
            )

            return stochastic_state, sub_key

        return lax.cond(
            self.stochastic_reset,
            _stochastic_reset,
            _deterministic_reset,
        )

    @partial(jit, static_argnums=0)
    def _reset_if_done(self, env_state, done):
        key = env_state[1]
        return lax.cond(
            done,
            self._reset,
            lambda key: env_state,
            key,
        )

    @partial(jit, static_argnums=0)
    def _get_reward_done(self, new_state):
        done = jnp.all(new_state == self.goal_state)
        reward = jnp.int32(done)

        return reward, done

    @partial(jit, static_argnames=("self"))
    def step(self, env_state, action):
        state, key = env_state
        action = self.movements[action]
        new_state = jnp.clip(
            jnp.add(state, action), jnp.array([0, 0]), self.grid_size - 1
        )
        reward, done = self._get_reward_done(new_state)

        env_state = new_state, key
        env_state = self._reset_if_done(env_state, done)
        new_state = env_state[0]

        return env_state, self._get_obs(new_state), reward, done

    def reset(self, key):
        env_state = self._reset(key)
        new_state = env_state[0]
        return env_state, self._get_obs(new_state)


def tabular_rollout(
    key,
    TIME_STEPS,
    N_ACTIONS,
    GRID_SIZE,
    env,
    agent,
    policy,
):
    def _single_agent_rollout(key: random.PRNGKey, timesteps=TIME_STEPS):
        @jit
        def _fori_body(i: int, val: tuple):
            env_state, action_key, all_obs, all_rewards, all_done, all_q_values = val
            state, _ = env_state
            q_values = all_q_values[i]

            # action selection, step and q-update
            actions, action_key = policy(action_key, N_ACTIONS, state, q_values)
            env_state, obs, rewards, done = env.step(env_state, actions)
            q_values = agent.update(state, actions, rewards, done, obs, q_values)

            # update observations, rewards, done flag and q_values
            all_obs = all_obs.at[i].set(obs)
            all_rewards = all_rewards.at[i].set(rewards)
            all_done = all_done.at[i].set(done)
            all_q_values = all_q_values.at[i + 1].set(q_values)

            val = (env_state, action_key, all_obs, all_rewards, all_done, all_q_values)
            return val

        # initialize obs, rewards, done and q_values with an added time index
        all_obs = jnp.zeros([timesteps, 2])
        all_rewards = jnp.zeros([timesteps], dtype=jnp.int32)
        all_done = jnp.zeros([timesteps], dtype=jnp.bool_)
        # q_values has first dimension = timesteps +1, as the update targets time step t+1
        all_q_values = jnp.zeros(
            [timesteps + 1, GRID_SIZE[0], GRID_SIZE[1], N_ACTIONS], dtype=jnp.float32
        )

        # random keys used for policy / action selection
        action_key = random.PRNGKey(0)  # expect: JIT502
        env_state, _ = env.reset(key)

        val_init = (
            env_state,
            action_key,
            all_obs,
            all_rewards,
            all_done,
            all_q_values,
        )
        val = lax.fori_loop(0, timesteps, _fori_body, val_init)

        return val

    return _single_agent_rollout(key, TIME_STEPS)


if __name__ == "__main__":
    import jax

    INITIAL_STATE = jnp.array([3, 4])
    GOAL_STATE = jnp.array([0, 0])
    GRID_SIZE = jnp.array([4, 5])
    N_ACTIONS = 4
    TIME_STEPS = 300

    env = GridWorld(INITIAL_STATE, GOAL_STATE, GRID_SIZE, False)
    policy = EpsilonGreedy(0.1)
    agent = Q_learning(0.9, 0.1)

    # two different seeds: the same action keys, the same trajectory, the same Q-table
    out1 = tabular_rollout(jrandom.PRNGKey(1), TIME_STEPS, N_ACTIONS, GRID_SIZE, env, agent, policy)
    out2 = tabular_rollout(jrandom.PRNGKey(2), TIME_STEPS, N_ACTIONS, GRID_SIZE, env, agent, policy)
    assert jnp.array_equal(out1[2], out2[2])  # all_obs
    assert jnp.array_equal(out1[5], out2[5])  # all_q_values
    assert out1[4].any()  # the goal is reached at least once, so the run is not trivial

    # the key given to call() is drawn from (uniform) and then split again
    jax.config.update("jax_debug_key_reuse", True)
    try:
        policy(jrandom.key(3), N_ACTIONS, INITIAL_STATE, jnp.zeros((4, 5, N_ACTIONS)))
        raise SystemExit("expected a KeyReuseError")
    except jax.errors.KeyReuseError as err:
        assert "random_split" in str(err), err
    jax.config.update("jax_debug_key_reuse", False)

    # the key handed back is the one the action was drawn with (epsilon=1: always explore)
    explorer = EpsilonGreedy(1.0)
    for seed in range(5):
        action, next_key = explorer(jrandom.PRNGKey(seed), N_ACTIONS, INITIAL_STATE, jnp.zeros((4, 5, N_ACTIONS)))
        assert random.choice(next_key, jnp.arange(N_ACTIONS)) == action
    print("ok")
