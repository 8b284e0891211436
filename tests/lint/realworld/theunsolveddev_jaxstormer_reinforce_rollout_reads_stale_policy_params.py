# source: https://github.com/TheUnsolvedDev/JaxStormer/blob/e5cb4fe067cd28038fc5089aa4206c0da995fb99/Dump/NewBeginning/Agent/Reinforce.py
#   (a REINFORCE agent class for gymnax environments: jitted methods with `self` static,
#   a lax.scan rollout and a Python training loop that stores the updated TrainState on self)
# observed on jax 0.10.2 CPU: generate_trajectory is jitted with `self` static and reads
#   self.policy_state.params inside its scan body, so the params of the first trace are
#   baked into the compiled rollout; train() stores each update in self.policy_state, but
#   every later generate_trajectory call hits the cache and samples with the initial
#   policy. After 3 training iterations (the params have changed), the agent's rollout is
#   identical to the rollout of a fresh untrained agent with the same key, while the same
#   method run unjitted (its __wrapped__) with the trained params gives other actions.
#   Kept as written: ReinforceAlgorithm (act, generate_trajectory, get_discounted_rewards,
#   train_single_step, train). Added: imports; Models/Policy.py's Pi module (the Pi of the
#   same commit, with config.HIDDEN = 64 inlined); a stand-in CartPole with gymnax's
#   reset(key, params) / step(key, state, action, params) interface (gymnax is not
#   installed); the __main__ block (max_episode_length 100, alpha 0.05, 3 iterations).
#   Changed: `\{iteration}` in train's f-string (an invalid escape, a SyntaxWarning) is
#   spelled `\\{iteration}`, which prints the same text.
# gap: stale-state-attributes
import functools

import flax
import flax.linen
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax.training.train_state import TrainState

HIDDEN = 64  # config.HIDDEN


class Pi(flax.linen.Module):  # Models/Policy.py
    num_actions: int

    @flax.linen.compact
    def __call__(self, state, seed=jax.random.PRNGKey(0)):
        x = flax.linen.Dense(HIDDEN)(state)
        x = flax.linen.silu(x)
        x = flax.linen.Dense(HIDDEN)(x)
        x = flax.linen.silu(x)
        x = flax.linen.Dense(self.num_actions)(x)
        return flax.linen.softmax(x, axis=-1)


class CartPoleStandIn:
    # stand-in for gymnax's CartPole-v1: same interface, simplified dynamics, auto-reset
    def reset(self, key, params=None):
        state = jax.random.uniform(key, (4,), minval=-0.05, maxval=0.05)
        return state, state  # obs, env state

    def step(self, key, state, action, params=None):
        force = jnp.where(action == 1, 10.0, -10.0)
        x, x_dot, theta, theta_dot = state
        theta_acc = 9.8 * jnp.sin(theta) - 0.1 * force * jnp.cos(theta)
        new = jnp.stack([x + 0.02 * x_dot, x_dot + 0.02 * 0.1 * force,
                         theta + 0.02 * theta_dot, theta_dot + 0.02 * theta_acc])
        done = (jnp.abs(new[2]) > 0.2095) | (jnp.abs(new[0]) > 2.4)
        reset_state, _ = self.reset(key, params)
        new = jnp.where(done, reset_state, new)
        return new, new, jnp.array(1.0), done, {}


class ReinforceAlgorithm:
    def __init__(self, env, env_params, num_actions, observation_shape, gamma=0.99, alpha=0.001, weight_decay=0.01, tau=0.01, max_episode_length=1000):
        self.num_actions = num_actions
        self.env_params = env_params
        self.observation_shape = observation_shape
        self.gamma = gamma
        self.alpha = alpha
        self.env = env
        self.weight_decay = weight_decay
        self.tau = tau
        self.max_episode_length = max_episode_length
        self.policy = Pi(self.num_actions)
        self.policy_state = TrainState.create(
            apply_fn=self.policy.apply,
            params=self.policy.init(jax.random.PRNGKey(
                0), jnp.ones(self.observation_shape)),
            tx=optax.adam(learning_rate=self.alpha)
        )

    @functools.partial(jax.jit, static_argnums=(0,))
    def act(self, rng, policy_params, state):
        state = jnp.expand_dims(state, axis=0)
        probs = self.policy.apply(policy_params, state)
        probs = jnp.squeeze(probs, axis=0)
        action = jax.random.choice(rng, jnp.arange(
            self.num_actions), shape=(1,), p=probs)
        rng, subkey = jax.random.split(rng)  # tolerate: JIT502
        return action[0], rng

    @functools.partial(jax.jit, static_argnums=(0,))
    def generate_trajectory(self, rng=jax.random.PRNGKey(0)):
        rng_reset, rng_episode = jax.random.split(rng, 2)
        state, obs = self.env.reset(rng_reset, self.env_params)

        @jax.jit
        def policy_step(obs_input, tmp):
            state, obs, rng = obs_input
            rng, rng_step = jax.random.split(rng)
            action, _ = self.act(rng_step, self.policy_state.params, state)  # expect: JIT201
            next_state, next_obs, reward, done, truncated = self.env.step(
                rng_step, obs, action, self.env_params)
            carry = [next_state, next_obs, rng]
            return carry, [state, action, reward, next_state, done]

        _, trajectory = jax.lax.scan(
            policy_step, [state, obs, rng_episode], (), self.max_episode_length)
        states, actions, rewards, next_states, dones = trajectory
        mask = jnp.array(1-jnp.array(dones, dtype=jnp.float32)).cumsum() <= 1
        mask = jnp.array(dones, dtype=jnp.float32).cumsum(axis=0)
        length_mask = jnp.sum(mask < 1)+1
        length_mask = jax.lax.stop_gradient(length_mask).astype(int)

        # print(length_mask, self.observation_shape[0])

        # states = jax.lax.dynamic_slice(
        #     states, (0, 0), (length_mask, self.observation_shape[0]))
        # actions = jax.lax.dynamic_slice(actions, (0,), (length_mask,))
        # rewards = jax.lax.dynamic_slice(rewards, (0,), (length_mask,))
        # dones = jax.lax.dynamic_slice(dones, (0,), (length_mask,))
        return states, actions, rewards, dones, length_mask
    
    @functools.partial(jax.jit, static_argnums=(0,))
    def get_discounted_rewards(self, rewards):
        reversed_rewards = rewards[::-1]
        discounted_rewards = jax.numpy.cumsum(reversed_rewards * (self.gamma ** jnp.arange(len(rewards))))
        discounted_rewards = discounted_rewards[::-1]
        return discounted_rewards

    @functools.partial(jax.jit, static_argnums=(0,))
    def train_single_step(self, experience, policy_state):
        states, actions, rewards = experience
        @jax.jit
        def loss_fn(params, states, actions, rewards):
            probs = self.policy.apply(params, states)
            log_probs = jnp.log(probs)
            actions_new = jax.nn.one_hot(
                actions, num_classes=self.num_actions)
            prob_reduce = -jnp.sum(log_probs*actions_new, axis=1)
            loss = prob_reduce*rewards
            return loss.mean()

        loss, grads = jax.value_and_grad(loss_fn)(
            policy_state.params, states, actions, rewards)
        policy_state = policy_state.apply_gradients(grads=grads)
        return policy_state, loss.mean()

    def train(self, iteration=10000):
        for i in range(iteration):
            rng = jax.random.PRNGKey(i)
            states, actions, rewards, dones, length_mask = self.generate_trajectory(rng)
            states,actions,rewards,dones = states[:length_mask],actions[:length_mask],rewards[:length_mask],dones[:length_mask]
            discounted_rewards = self.get_discounted_rewards(rewards*(1-dones))
            policy_state, loss = self.train_single_step(
                (states, actions, discounted_rewards), self.policy_state)
            print(f'\r Game [{i}\\{iteration}] loss:\t {loss:.4f}\t reward:\t {rewards.sum()}')
            self.policy_state = policy_state
        print()    

    def evaluate(self):
        pass


if __name__ == "__main__":
    env = CartPoleStandIn()
    agent = ReinforceAlgorithm(env, None, 2, (4,), alpha=0.05, max_episode_length=100)
    init_params = agent.policy_state.params
    agent.train(iteration=3)
    changed = jax.tree_util.tree_map(lambda a, b: bool(jnp.any(a != b)),
                                     init_params, agent.policy_state.params)
    assert any(jax.tree_util.tree_leaves(changed))

    rng = jax.random.PRNGKey(123)
    stale = agent.generate_trajectory(rng)
    untrained = ReinforceAlgorithm(env, None, 2, (4,), alpha=0.05, max_episode_length=100)
    before_training = untrained.generate_trajectory(rng)  # tolerate: JIT502
    fresh = ReinforceAlgorithm.generate_trajectory.__wrapped__(agent, rng)
    # observed: line 101 reads self.policy_state.params at trace time: the trained agent's
    #   rollout equals an untrained agent's, and differs from one traced with its params
    assert bool(jnp.all(stale[1] == before_training[1]))
    assert not bool(jnp.all(stale[1] == fresh[1]))
    print('stale == untrained:', True, ' stale == fresh:', False)
