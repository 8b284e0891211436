# source: https://github.com/onnoeberhard/ajents/blob/fab7371ce20896e49292c52e6880d069a3ac172a/ajents/base.py (with ajents/pg.py, ajents/util.py and examples/reinforce_linear.py at the same commit fab7371; the key of `learn` is split per iteration in f45c344 "corrected jit problems", the per-rollout reuse in `rollouts` stays at HEAD)
# observed on jax 0.10.2 CPU: every rollout collected by one `rollouts` call samples its actions from the same key sequence, and every training iteration of `learn` starts from the same key again (silent, correlated exploration)
# gap: flow-sensitive
# (added: a small stand-in `CartPole` class with the dynamics of gymnasium's CartPole-v1, since gymnasium is not installed; the three modules are merged into one file; `jax.tree_map` spelled `jax.tree_util.tree_map`; small sizes; the `__main__` block)
import warnings
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import optax
from tqdm import TqdmExperimentalWarning
from tqdm.rich import trange


class Agent:
    """Abstract agent class"""
    def act(self, obs, rng, explore=True):
        """Sample action from policy"""
        raise NotImplementedError

def rollout(agent, env, rng_agent, rng_env, steps=None, explore=True, live=False):
    """Collect a rollout of `agent` in `env`. If `steps` is `None`, one episode is collected."""
    # Initialize return variables
    observations = []
    actions = []
    rewards = []
    info = {'steps': 0, 'episodes': 0}

    # Initialize environment
    env.np_random = rng_env
    obs, _ = env.reset()
    observations.append(obs)
    if live:
        print('Actions: ', end='')

    # Run interaction loop
    steps_left = steps or np.inf
    while steps_left:
        # Sample and execute action
        rng_agent, key = jax.random.split(rng_agent)
        action = agent.act(obs, key, explore)
        obs, reward, terminated, truncated, _ = env.step(np.array(action))
        if live:
            print(action, end='\n' if terminated or truncated else '', flush=True)

        # Store interaction
        actions.append(action)
        rewards.append(reward)
        observations.append(obs)
        info['steps'] += 1
        info['episodes'] += terminated or truncated

        # Break if done
        steps_left -= 1
        if steps is None and (terminated or truncated):
            break

    return observations, actions, rewards, info

def rollouts(agent, env, rng_agent, rng_env, n_rollouts, steps=None, explore=True, pb=None):
    """Collect multiple rollouts"""
    observations = []
    actions = []
    rewards = []

    pb = pb or (lambda x: x)
    for _ in pb(range(n_rollouts)):
        os, as_, rs, _ = rollout(agent, env, rng_agent, rng_env, steps, explore)  # expect: JIT502
        observations.append(os)
        actions.append(as_)
        rewards.append(rs)

    return observations, actions, rewards


class BoltzmannPolicy:
    """Boltzmann (softmax) categorical policy"""
    def __init__(self, f, temp=1.):
        self.f = f  # Function of (params, obs) that returns logits (unnormalized scores) for all actions
        self.temp = temp

    def log_pi(self, params, obs, action):
        """Return log-probability/density of action at observation"""
        return jax.nn.log_softmax(self.temp * self.f(params, obs))[action.astype(int)]

    def sample(self, params, obs, rng):
        """Sample action from policy"""
        return jax.random.categorical(rng, self.temp * self.f(params, obs))

    def greedy(self, params, obs):
        """Greedy action"""
        return jnp.argmax(self.f(params, obs))


def pad_rect(lists):
    """Turn a list of lists of arrays into a rectangular numpy array by padding with nans."""
    max_len = max(len(l) for l in lists)
    return np.array([l + [np.ones_like(l[0]) * np.nan] * (max_len - len(l)) for l in lists])


class REINFORCE(Agent):
    """REINFORCE (vanilla policy gradient) agent"""
    def __init__(self, policy, params, causal=True, baseline=True, learning_rate=0.001):
        # Fixed parameters
        self.policy = policy
        self.causal = causal
        self.baseline = baseline

        # Initialize optimizer
        self.optimizer = optax.sgd(-learning_rate)

        # Variables
        self.params = params
        self.opt_state = self.optimizer.init(params)

    @partial(jax.jit, static_argnums=(0, 4))
    def _act(self, params, obs, rng, explore):
        return self.policy.sample(params, obs, rng) if explore else self.policy.greedy(params, obs)

    def act(self, obs, rng, explore=True):
        """Sample action from current policy (or greedy if `explore` is `False`)"""
        return self._act(self.params, obs, rng, explore)

    @partial(jax.jit, static_argnums=(0,))
    def update(self, params, opt_state, observations, actions, rewards):
        """Calculate policy gradient and take one optimization step."""
        def grad_log_policy(obs, action):
            """Gradient (wrt. params) of log-policy at given state-action pair"""
            return jax.lax.cond(jnp.isnan(action).any(),
                lambda: jax.tree_util.tree_map(lambda x: x*jnp.nan, params),
                lambda: jax.jacobian(self.policy.log_pi)(params, obs, action)
            )

        # Calculate policy gradient from rollouts
        grads = jax.vmap(jax.vmap(grad_log_policy))(observations, actions)
        returns = jnp.nansum(rewards, 1)
        if self.causal:
            # Use rewards to go (account for causality)
            rewards_to_go = returns[:, None] - jnp.nancumsum(rewards, 1) + rewards
            advantage = rewards_to_go - rewards_to_go.mean(0) if self.baseline else rewards_to_go
            grads = jax.tree_util.tree_map(lambda x: jax.vmap(jax.vmap(jnp.multiply))(x, advantage), grads)
            grads = jax.tree_util.tree_map(lambda x: jnp.nansum(x, 1), grads)
        else:
            # Use total episode return
            advantage = returns - returns.mean() if self.baseline else returns
            grads = jax.tree_util.tree_map(lambda x: jnp.nansum(x, 1), grads)
            grads = jax.tree_util.tree_map(lambda x: jax.vmap(jnp.multiply)(x, advantage), grads)
        grads = jax.tree_util.tree_map(lambda x: x.mean(0), grads)

        # Update policy
        updates, opt_state = self.optimizer.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        return params, opt_state

    def learn(self, env, rng_agent, rng_env, n_iterations, n_rollouts, threshold=None):
        """Train agent"""
        for j in (pb := trange(n_iterations)):
            # Collect rollouts
            os, as_, rs = rollouts(self, env, rng_agent, rng_env, n_rollouts)  # expect: JIT502
            observations, actions, rewards = (pad_rect(x) for x in (os, as_, rs))
            observations = observations[:, :-1]
            ret = np.nansum(rewards, 1).mean()

            # Monitoring
            pb.write(f"Iteration {j + 1:{len(str(n_iterations))}d}/{n_iterations}. Average return = {ret:f}")

            # Break if threshold is reached
            if threshold is not None and ret >= threshold:
                print("Solved!")
                break

            # Calculate policy gradient and update policy
            self.params, self.opt_state = self.update(self.params, self.opt_state, observations, actions, rewards)

        return j + 1  # pylint: disable=undefined-loop-variable

# Suppress warning from tqdm rich library
warnings.filterwarnings('ignore', category=TqdmExperimentalWarning)


def policy_logits(params, obs):
    """Unnormalized log-policy. Simple policy affine in observation."""
    return params['weights'] @ obs + params['bias']

def init_params(env, rng):
    """Initialize parameters of log-affine policy."""
    key1, key2 = jax.random.split(rng)
    params = {'weights': 0.01 * jax.random.normal(key1, (env.action_space.n, env.observation_space.shape[0])),
              'bias': 0.01 * jax.random.normal(key2, (env.action_space.n,))}
    return params


class _Space:  # stand-in for gymnasium spaces
    def __init__(self, n=None, shape=None):
        self.n, self.shape = n, shape


class CartPole:  # stand-in for gym.make('CartPole-v1')
    action_space = _Space(n=2)
    observation_space = _Space(shape=(4,))

    def __init__(self):
        self.np_random = np.random.default_rng(0)

    def reset(self):
        self.state = self.np_random.uniform(-0.05, 0.05, size=(4,))
        self.t = 0
        return self.state.astype(np.float32), {}

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = 10.0 if int(action) == 1 else -10.0
        costheta, sintheta = np.cos(theta), np.sin(theta)
        temp = (force + 0.05 * theta_dot ** 2 * sintheta) / 1.1
        thetaacc = (9.8 * sintheta - costheta * temp) / (0.5 * (4.0 / 3.0 - 0.1 * costheta ** 2 / 1.1))
        xacc = temp - 0.05 * thetaacc * costheta / 1.1
        x, x_dot = x + 0.02 * x_dot, x_dot + 0.02 * xacc
        theta, theta_dot = theta + 0.02 * theta_dot, theta_dot + 0.02 * thetaacc
        self.state = np.array([x, x_dot, theta, theta_dot])
        self.t += 1
        terminated = bool(abs(x) > 2.4 or abs(theta) > 12 * 2 * np.pi / 360)
        return self.state.astype(np.float32), 1.0, terminated, self.t >= 500, {}


if __name__ == "__main__":
    seed = 42
    rng = jax.random.PRNGKey(seed)
    np_rng = np.random.default_rng(seed)
    env = CartPole()
    rng, key = jax.random.split(rng)
    policy = BoltzmannPolicy(policy_logits, temp=2.)
    params = init_params(env, key)
    agent = REINFORCE(policy, params)

    # record the key of every action the agent samples, per rollout
    episodes = []
    original_act = agent.act
    def recording_act(obs, rng, explore=True):
        if not episodes or episodes[-1] is None:
            episodes.append([])
        episodes[-1].append(tuple(np.asarray(rng).tolist()))
        return original_act(obs, rng, explore)
    agent.act = recording_act
    original_step = env.step
    def recording_step(action):
        out = original_step(action)
        if out[2] or out[3]:
            episodes.append(None)  # episode boundary
        return out
    env.step = recording_step

    n_rollouts = 3
    rng, key = jax.random.split(rng)
    agent.learn(env, key, np_rng, 2, n_rollouts)
    eps = [e for e in episodes if e is not None]
    assert len(eps) == 2 * n_rollouts, len(eps)
    # within one rollouts() call, each rollout starts from the same key sequence
    for a, b in [(eps[0], eps[1]), (eps[1], eps[2])]:
        m = min(len(a), len(b))
        assert a[:m] == b[:m]
    print("line 69: rollouts of one call share their action keys:", eps[0][:2] == eps[1][:2])
    # the second iteration of learn() replays the key sequence of the first
    m = min(len(eps[0]), len(eps[n_rollouts]))
    assert eps[0][:m] == eps[n_rollouts][:m]
    print("line 160: iteration 2 reuses the keys of iteration 1:", eps[0][:m] == eps[n_rollouts][:m])
# observed: line 69 the three rollouts of one `rollouts` call draw their actions with identical key sequences
# observed: line 160 the second training iteration draws its actions with the same key sequence as the first
