# source: https://github.com/TheUnsolvedDev/JaxStormer/blob/e5cb4fe067cd28038fc5089aa4206c0da995fb99/Dump/Non_Atari/trials/dqn_jax.py
#   (a DQN training script for gymnax CartPole: a vmapped, jitted Env wrapper class, a Python
#   replay buffer, a flax Q network and a DQN class with epsilon-greedy exploration)
# observed on jax 0.10.2 CPU: DQN.policy draws its exploration actions with
#   jax.random.randint(key, ...) from the module-level `key`, which never changes, so every
#   exploring step takes the same NUM_ENVS actions (with EPSILON 1.0 every step before
#   LEARNING_START does: all 13 steps of the run take the same actions); Env.step hands
#   the same self.vmap_keys to gymnax's step at every call, so an environment that ends an
#   episode is always reset to the same start state (two different terminal states step
#   to identical reset states).
#   Kept as written: Env, ReplayBuffer, Q, TrainState, linear_schedule, init_model and DQN
#   (policy_greedy, policy, update, train). Added: imports and the hyperparameters that
#   trials/import_packages.py defines (not in the stored snapshot; small values chosen
#   here); a stand-in for gymnax.make('CartPole-v1') with gymnax's reset/step interface and
#   its auto-reset (step splits its key and resets from the second half when done), since
#   gymnax is not installed. Left out: wandb.init, the test() evaluation with gym video
#   recording, the csv/wandb logging and the orbax checkpoint in train's
#   UPDATE_TARGET_FREQUENCY branch; the tqdm wrapper of train's loop. The __main__ block
#   runs train() and records the actions it takes.
# gap: other
import functools

import flax
import flax.linen
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax.training.train_state import TrainState

# trials/import_packages.py (stand-in values)
ENV = 'CartPole-v1'
ALPHA = 1e-3
GAMMA = 0.99
TOTAL_TIME_STEPS = 12
LEARNING_START = 20
BUFFER_SIZE = 100
EPSILON = 1.0
TRAIN_FREQUENCY = 2
UPDATE_TARGET_FREQUENCY = 4
BATCH_SIZE = 4
NUM_ENVS = 4
TAU = 1.0
MAX_EPISODE_STEPS = 500
SAVE_TEST = 1000


class CartPoleStandIn:
    # stand-in for gymnax's CartPole-v1 environment (simplified dynamics)
    num_actions = 2
    obs_shape = (4,)

    def reset_env(self, key, params):
        state = jax.random.uniform(key, (4,), minval=-0.05, maxval=0.05)
        return state, state

    def step_env(self, key, state, action, params):
        force = jnp.where(action == 1, 10.0, -10.0)
        x, x_dot, theta, theta_dot = state
        theta_acc = 9.8 * jnp.sin(theta) - 0.1 * force * jnp.cos(theta)
        new = jnp.stack([x + 0.02 * x_dot, x_dot + 0.02 * 0.1 * force,
                         theta + 0.02 * theta_dot, theta_dot + 0.02 * theta_acc])
        done = (jnp.abs(new[2]) > 0.2095) | (jnp.abs(new[0]) > 2.4)
        return new, new, jnp.array(1.0), done, {}

    def reset(self, key, params=None):
        return self.reset_env(key, params)

    def step(self, key, state, action, params=None):
        # gymnax.environments.environment.Environment.step: auto-reset
        key, key_reset = jax.random.split(key)
        obs_st, state_st, reward, done, info = self.step_env(key, state, action, params)
        obs_re, state_re = self.reset_env(key_reset, params)
        state = jax.tree_util.tree_map(lambda x, y: jnp.where(done, x, y), state_re, state_st)
        obs = jnp.where(done, obs_re, obs_st)
        return obs, state, reward, done, info


class gymnax:  # stand-in namespace for gymnax.make
    @staticmethod
    def make(name):
        return CartPoleStandIn(), None


algorithm = 'dqn_jax'
key = jax.random.PRNGKey(0)
rng, key_reset, key_policy, key_step = jax.random.split(key, 4)


class Env:
    def __init__(self, num_envs=8) -> None:
        self.env, self.env_params = gymnax.make(ENV)
        self.vmap_keys = jax.random.split(rng, num_envs)
        self.vmap_reset = jax.vmap(self.env.reset, in_axes=(0, None))
        self.vmap_step = jax.vmap(self.env.step, in_axes=(0, 0, 0, None))

    @functools.partial(jax.jit, static_argnums=(0,))
    def reset(self):
        obs, state = self.vmap_reset(self.vmap_keys, self.env_params)
        return obs, state

    @functools.partial(jax.jit, static_argnums=(0,))
    def step(self, state, action):
        next_obs, next_state, reward, done, _ = self.vmap_step(
            self.vmap_keys, state, action, self.env_params)  # expect: JIT502
        return next_obs, next_state, reward, done, _


class ReplayBuffer:
    def __init__(self, capacity):
        self.capacity = capacity
        self.buffer = []
        self.position = 0

    def push(self, transition):
        if len(self.buffer) < self.capacity:
            self.buffer.append(transition)
        else:
            self.buffer[self.position] = transition
        self.position = (self.position + 1) % self.capacity

    def sample(self, batch_size):
        # batch_size //= NUM_ENVS
        return jax.random.choice(jax.random.PRNGKey(np.random.randint(low=0, high=100)), len(self.buffer), shape=(batch_size,), replace=False)

    def get_batch(self, indices):
        states, actions, rewards, next_states, dones = zip(
            *[self.buffer[i] for i in indices])
        states = jnp.array(states).reshape((NUM_ENVS*len(indices), -1))
        actions = jnp.array(actions).reshape((NUM_ENVS*len(indices), -1))
        rewards = jnp.array(rewards).reshape((NUM_ENVS*len(indices), -1))
        next_states = jnp.array(next_states).reshape(
            (NUM_ENVS*len(indices), -1))
        dones = jnp.array(dones).reshape((NUM_ENVS*len(indices), -1))
        return states, actions, rewards, next_states, dones


class Q(flax.linen.Module):
    action_dim: int

    @flax.linen.compact
    def __call__(self, x: jnp.ndarray):
        x = flax.linen.Dense(120)(x)
        x = flax.linen.relu(x)
        x = flax.linen.Dense(84)(x)
        x = flax.linen.relu(x)
        x = flax.linen.Dense(self.action_dim)(x)
        return x


class TrainState(TrainState):
    target_params: flax.core.FrozenDict


def linear_schedule(start_e: float, end_e: float, duration: int, t: int):
    slope = (end_e - start_e) / duration
    return max(slope * t + start_e, end_e)


def init_model(env):
    q_network = Q(env.num_actions)
    q_state = TrainState.create(
        apply_fn=q_network.apply,
        params=q_network.init(key, jnp.zeros(env.obs_shape)),
        target_params=q_network.init(
            key, jnp.zeros(env.obs_shape)),
        tx=optax.adam(learning_rate=ALPHA),
    )
    q_network.apply = jax.jit(q_network.apply)
    q_state = q_state.replace(target_params=optax.incremental_update(
        q_state.params, q_state.target_params, 1))
    print(q_network.tabulate(key, jnp.ones(
        env.obs_shape)))
    return q_network, q_state


class DQN:
    def __init__(self) -> None:
        self.env = Env(num_envs=NUM_ENVS)
        self.replay_buffer = ReplayBuffer(BUFFER_SIZE)
        self.q_network, self.q_state = init_model(self.env.env)

    @functools.partial(jax.jit, static_argnums=(0,))
    def policy_greedy(self, q_state, state):
        q_values = self.q_network.apply(q_state.params, state)
        action = q_values.argmax(axis=-1)
        return action

    def policy(self, q_state, state, epsilon=0.1, test=False):
        if np.random.uniform() < epsilon:
            if test:
                return np.random.randint(0, self.env.env.num_actions)
            return jax.random.randint(key, minval=0, maxval=self.env.env.num_actions, shape=(NUM_ENVS,))  # expect: JIT502
        return jax.device_get(self.policy_greedy(q_state, state))

    @functools.partial(jax.jit, static_argnums=(0,))
    def update(self, q_state, states, actions, rewards, next_states,  dones):
        q_next_target = self.q_network.apply(
            q_state.target_params, next_states)
        q_next_target = jnp.max(q_next_target, axis=-1)
        next_q_value = (rewards + (1 - dones) * GAMMA * q_next_target)

        def mse_loss(params):
            q_pred = self.q_network.apply(params, states)
            q_pred = q_pred[jnp.arange(q_pred.shape[0]), actions.squeeze()]
            return ((jax.lax.stop_gradient(next_q_value) - q_pred) ** 2).mean(), q_pred

        (loss_value, q_pred), grads = jax.value_and_grad(
            mse_loss, has_aux=True)(q_state.params)
        q_state = q_state.apply_gradients(grads=grads)
        return loss_value, jnp.mean(q_pred), q_state

    def train(self):
        state, obs = self.env.reset()
        epsilon = EPSILON

        for step in range(TOTAL_TIME_STEPS+1):
            action = self.policy(self.q_state, state, epsilon)
            next_state, next_obs, reward, done, _ = self.env.step(
                obs, action)
            self.replay_buffer.push([state, action, reward, next_state, done])
            state = next_state
            obs = next_obs

            if step > LEARNING_START:
                epsilon = linear_schedule(
                    start_e=EPSILON, end_e=0.05, duration=TOTAL_TIME_STEPS*0.5, t=step)
                if not step % TRAIN_FREQUENCY:
                    indices = self.replay_buffer.sample(BATCH_SIZE)
                    states, actions, rewards, next_states, dones = self.replay_buffer.get_batch(
                        indices)
                    loss_values, q_pred, self.q_state = self.update(
                        self.q_state, states, actions, rewards, next_states,  dones)

                if not step % UPDATE_TARGET_FREQUENCY:
                    self.q_state = self.q_state.replace(target_params=optax.incremental_update(
                        self.q_state.params, self.q_state.target_params, 1))


if __name__ == '__main__':
    agent = DQN()
    agent.train()
    taken = [np.asarray(t[1]) for t in agent.replay_buffer.buffer]
    # observed: line 193 explores with the never-changing module-level key: every step
    #   of the run (epsilon 1.0 before LEARNING_START) took the same NUM_ENVS actions
    assert len(taken) == TOTAL_TIME_STEPS + 1
    assert all((a == taken[0]).all() for a in taken), taken
    # observed: line 105 steps every call with the same self.vmap_keys: two different
    #   terminal states (pole past the threshold) are reset to identical start states
    _, env_state = agent.env.reset()
    fallen_a = env_state.at[:, 2].set(0.5)
    fallen_b = env_state.at[:, 2].set(-0.7).at[:, 0].set(1.0)
    actions = jnp.zeros((NUM_ENVS,), dtype=jnp.int32)
    next_a, _, _, done_a, _ = agent.env.step(fallen_a, actions)
    next_b, _, _, done_b, _ = agent.env.step(fallen_b, actions)
    assert bool(done_a.all()) and bool(done_b.all())
    assert bool((next_a == next_b).all())
    print('same exploration actions every step:', taken[0], '; same reset states:', True)
