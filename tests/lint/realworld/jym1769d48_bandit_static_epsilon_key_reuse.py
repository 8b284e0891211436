# source: https://github.com/RPegoud/jym/blob/1769d4887de5bc032011fe5d0114aa339c5771e1/jym/policies/bandits_epsilon_greedy.py
# observed on jax 0.10.2 CPU: see the `# observed:` lines below; bandits_parallel_rollout (used in the repo's notebooks/bandits/incremental_bandits.ipynb) fails with ValueError: Non-hashable static arguments (BatchTracer) (the notebook's saved output, from an older JAX that still hashed tracers, shows it running), and every rollout step reuses keys
# gap: static-hashability
# observed: line 42 with typed keys and jax_debug_key_reuse, call() raises KeyReuseError "In random_split, argument 0 is already consumed" (the key was already drawn from by random.uniform)
# observed: line 50 the returned key is the one the action was drawn with: random.choice(next_key, arange(K)) reproduces the action, and the rollout draws from it again next step
# observed: line 55 bandits_parallel_rollout raises ValueError: Non-hashable static arguments are not supported (BatchTracer for the static `epsilon`), innermost frame in the file on this line
# observed: line 71 the returned key is the one the reward noise was drawn with: random.normal(next_key) + q[a] reproduces the reward
# also from the same commit: jym/envs/bandits/k_armed_bandits.py (get_reward, get_batched_reward), jym/agents/simple_bandit.py, jym/utils/rollouts/bandits_rollouts.py (bandits_rollout, bandits_parallel_rollout)
# changes: the BasePolicy base class is inlined as a plain `__call__`; K_armed_bandits keeps only K and the reward functions (render() dropped); the `@loop_tqdm(timesteps)` progress-bar decorator is dropped; imports gathered at the top; `__main__` block added
from functools import partial

import jax.numpy as jnp
from jax import jit, lax, random, vmap


class BanditEpsilonGreedy:
    """
    Epsilon-Greedy policy with random tie-breaks
    """

    def __call__(self, *args, **kwargs):
        return self.call(*args, **kwargs)

    @staticmethod
    @partial(jit, static_argnums=(1, 3))
    def call(key, n_actions, q_values, epsilon):
        def _random_action_fn(subkey):
            return random.choice(subkey, jnp.arange(n_actions))

        def _greedy_action_fn(subkey):
            """
            Selects the greedy action with random tie-break
            If multiple Q-values are equal, sample uniformly from their indexes
            """
            q_max = jnp.max(q_values, axis=-1)
            q_max_mask = jnp.equal(q_values, q_max)
            p = jnp.divide(q_max_mask, q_max_mask.sum())
            choice = random.choice(subkey, jnp.arange(n_actions), p=p)
            return jnp.int32(choice)

        explore = random.uniform(key) < epsilon
        key, subkey = random.split(key)  # expect: JIT502
        action = lax.cond(
            explore,
            _random_action_fn,
            _greedy_action_fn,
            operand=subkey,
        )

        return action, subkey  # expect: JIT502

    @staticmethod
    @partial(jit, static_argnums=(1))
    def batched_call(key, n_actions, q_values, epsilon):
        return vmap(  # expect: JIT302
            BanditEpsilonGreedy.call,
            in_axes=(0, None, -1, 0),
        )(key, n_actions, q_values, epsilon)


class K_armed_bandits:
    def __init__(self, K: int, SEED: int) -> None:
        self.K = K
        self.actions = jnp.arange(K)
        self.init_key = random.PRNGKey(SEED)

    @staticmethod
    @jit
    def get_reward(key, action, bandits_q):
        key, subkey = random.split(key)
        return random.normal(subkey) + bandits_q[action], subkey  # expect: JIT502

    @staticmethod
    @jit
    def get_batched_reward(key, action, bandits_q):
        return vmap(
            K_armed_bandits.get_reward,
            in_axes=(0, 0, None),
        )(key, action, bandits_q)


class SimpleBandit:
    @staticmethod
    @jit
    def __call__(action, reward, pulls, q_values):
        q_value = q_values[action]

        pull_update = pulls[action] + 1
        # incremental mean update
        # new_estimate = old_estimate + step_size(target - olde_estimate)
        q_update = q_value + (1 / pull_update) * (reward - q_value)
        return q_values.at[action].set(q_update), pulls.at[action].set(pull_update)

    @staticmethod
    @jit
    def batch_update(actions, rewards, pulls, q_values):
        return vmap(
            SimpleBandit.__call__,
            # in_axes =-1 => loop over the batch dimension
            in_axes=(0, 0, -1, -1),
            # out_axes =-1 => the batch dimensions appears last
            out_axes=-1,
        )(actions, rewards, pulls, q_values)


def bandits_rollout(
    key,
    timesteps: int,
    bandits_q: list,
    epsilon: float,
    env,
    agent,
    policy,
):
    """
    Trains a single bandit agent.
    """

    @jit
    def fori_body(i: int, val: tuple):
        q_values, pulls, key, rewards = val
        action, key = policy(key, env.K, q_values, epsilon)
        reward, key = env.get_reward(key, action, bandits_q)
        q_values, pulls = agent(action, reward, pulls, q_values)
        rewards = rewards.at[i].set(reward)

        val = (q_values, pulls, key, rewards)

        return val

    q_values = jnp.zeros(env.K)
    pulls = jnp.zeros(env.K)
    rewards = jnp.zeros(timesteps)

    val_init = (q_values, pulls, key, rewards)
    val = lax.fori_loop(0, timesteps, fori_body, val_init)

    return val


def bandits_parallel_rollout(
    key,
    timesteps: int,
    n_env: int,
    bandits_q: list,
    epsilons: list,
    env,
    agent,
    policy,
):
    """
    Trains multiple bandit agents in parallel, each with an independent
    epsilon parameter.
    """

    @jit
    def fori_body(i: int, val: tuple):
        q_values, pulls, keys, rewards = val
        action, keys = policy.batched_call(keys, env.K, q_values, epsilons)
        reward, keys = env.get_batched_reward(keys, action, bandits_q)
        q_values, pulls = agent.batch_update(action, reward, pulls, q_values)
        rewards = rewards.at[i].set(reward)

        val = (q_values, pulls, keys, rewards)

        return val

    keys = random.split(key, (n_env,))
    q_values = jnp.zeros([env.K, n_env])
    pulls = jnp.zeros([env.K, n_env])
    rewards = jnp.zeros([timesteps, n_env])

    val_init = (q_values, pulls, keys, rewards)
    val = lax.fori_loop(0, timesteps, fori_body, val_init)

    return val


if __name__ == "__main__":
    import traceback

    import jax

    SEED = 1
    K = 10
    key = random.PRNGKey(SEED)
    agent = SimpleBandit()
    policy = BanditEpsilonGreedy()
    env = K_armed_bandits(K, SEED)

    TIMESTEPS = 50
    bandits_q = random.normal(key, (env.K,))
    q_values, pulls, _, rewards = bandits_rollout(key, TIMESTEPS, bandits_q, 0.1, env, agent, policy)
    assert rewards.shape == (TIMESTEPS,)

    # the parallel rollout of the notebook: the batched epsilons reach a static argument
    EPSILONS = jnp.array([0, 0.1, 0.01])
    try:
        bandits_parallel_rollout(key, TIMESTEPS, len(EPSILONS), bandits_q, EPSILONS, env, agent, policy)
        raise SystemExit("expected the parallel rollout to fail")
    except ValueError as err:
        assert "Non-hashable static arguments" in str(err)
        frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename == __file__]
        bad_line = frames[-1].lineno
        assert "return vmap(" in open(__file__).read().splitlines()[bad_line - 1], bad_line

    # the key given to call() is drawn from (uniform) and then split again
    jax.config.update("jax_debug_key_reuse", True)
    try:
        BanditEpsilonGreedy.call(random.key(3), K, jnp.zeros(K), 0.5)
        raise SystemExit("expected a KeyReuseError")
    except jax.errors.KeyReuseError as err:
        assert "random_split" in str(err), err
    jax.config.update("jax_debug_key_reuse", False)

    # the key handed back by call() is the one the action was drawn with (epsilon=1: always explore)
    for seed in range(5):
        action, next_key = BanditEpsilonGreedy.call(random.PRNGKey(seed), K, jnp.zeros(K), 1.0)
        assert random.choice(next_key, jnp.arange(K)) == action

    # the key handed back by get_reward() is the one the reward noise was drawn with
    reward, next_key = K_armed_bandits.get_reward(random.PRNGKey(7), 2, bandits_q)
    assert jnp.allclose(random.normal(next_key) + bandits_q[2], reward)
    print("ok")
