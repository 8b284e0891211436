# source: https://github.com/bcolloran/deep_rl_experiments/blob/2dc3dd55e50077483900486a408443167a44f4c9/jax/SAC_agent.py
# observed on jax 0.10.2 CPU: Agent.update() defines fresh local q_loss_agent/pi_loss_agent/alpha_loss_agent closures on every call and passes them as the static argument of the jitted batch_grad, so batch_grad misses its cache and is retraced and recompiled 3 times per update step (the author's next commit 2b8d856 "redo update (MUCH FASTER!)" replaced it with update_2 using module-level loss functions).
# observed: line 301 batch_grad gets a new q_loss_agent closure as static arg every update(): new cache entry / recompile per call
# observed: line 303 same for pi_loss_agent: batch_grad recompiles every update()
# observed: line 305 same for alpha_loss_agent: batch_grad recompiles every update() (cache size 3,6,9,12 after 4 updates)
# gap: per-call-recompile
# (renamed old APIs: jax.experimental.stax -> jax.example_libraries.stax, jax.tree_multimap -> jax.tree_util.tree_map)
# (stand-ins for the repo's helper modules: stax_nn_utils (copy_network, interpolate_networks, add_gradient, copied from the repo),
#  replay_buffer.ReplayBuffer (sample_batch of the repo; store is a small stand-in), jax_nn_utils.RewardStandardizer (empty stand-in);
#  the unused dampedSpringNoise import, the commented-out act() and the remember_episode/make_agent_act_fn methods are left out)
import jax
import jax.numpy as jnp
from jax.example_libraries.stax import serial, Relu, Dense, parallel, FanOut
from jax.nn.initializers import he_normal, zeros, ones

from jax import grad, jit, value_and_grad
from functools import partial

import numpy as np

from collections import namedtuple


# ---- stand-in: stax_nn_utils (from the same repo) ----
class stu:
    @staticmethod
    def copy_network(params):
        return jax.tree_util.tree_map(lambda x: x.copy(), params)

    @staticmethod
    @jit
    def interpolate_networks(params_current, params_goal, tau):
        return jax.tree_util.tree_map(
            lambda x1, x2: tau * x1 + (1 - tau) * x2, params_goal, params_current
        )

    @staticmethod
    @jit
    def add_gradient(nn_params, g, LR):
        return jax.tree_util.tree_map(lambda x, dx: x + LR * dx, nn_params, g)


# ---- stand-in: replay_buffer.ReplayBuffer (sample_batch as in the repo) ----
class ReplayBuffer:
    def __init__(self, obs_dim, act_dim, size, reward_steps=1, batch_size=64):
        size = int(size)
        self.batch_size = batch_size
        self.S1 = np.zeros((size, obs_dim))
        self.Sn = np.zeros((size, obs_dim))
        self.A1 = np.zeros((size, act_dim))
        self.R1n = np.zeros((size, reward_steps))
        self.Done1 = np.zeros(size)
        self.size = 0

    def fill_random(self, rng):
        self.S1[:] = rng.normal(size=self.S1.shape)
        self.Sn[:] = rng.normal(size=self.Sn.shape)
        self.A1[:] = rng.uniform(-1, 1, size=self.A1.shape)
        self.R1n[:] = rng.normal(size=self.R1n.shape)
        self.size = self.S1.shape[0]

    def sample_batch(self, batch_size=None):
        if batch_size is None:
            batch_size = self.batch_size
        idxs = np.random.randint(0, self.size, size=batch_size)
        return (
            self.S1[idxs],
            self.Sn[idxs],
            self.A1[idxs],
            self.R1n[idxs],
            self.Done1[idxs],
        )


class jnn:
    class RewardStandardizer:
        pass


def create_pi_net(obs_dim: int, action_dim: int, rngkey=jax.random.PRNGKey(0)):
    pi_init, pi_fn = serial(
        Dense(64, he_normal(), zeros),
        Relu,
        FanOut(2),
        parallel(
            serial(
                Dense(64, he_normal(), zeros),
                Relu,
                Dense(action_dim, he_normal(), zeros),
            ),
            serial(
                Dense(64, he_normal(), zeros),
                Relu,
                Dense(action_dim, he_normal(), zeros),
            ),
        ),
    )
    output_shape, pi_params = pi_init(rngkey, (1, obs_dim))
    pi_fn = jit(pi_fn)
    return pi_params, pi_fn


def create_q_net(obs_dim, action_dim, rngkey=jax.random.PRNGKey(0)):
    q_init, q_fn = serial(
        Dense(64, he_normal(), zeros),
        Relu,
        Dense(64, he_normal(), zeros),
        Relu,
        Dense(action_dim, he_normal(), zeros),
    )
    output_shape, q_params = q_init(rngkey, (1, obs_dim + action_dim))

    @jit
    def q_fn2(q, S, A):
        return q_fn(q, jnp.hstack([S, A]))

    return q_params, q_fn2


@jit
def log_pdf_std_norm(x, mu, std):
    # only applicable when covariance is a diagonal matrix! (represented by "std" vector)
    # textbook log of normal PDF
    d = len(x)
    return -0.5 * (
        d * jnp.log(2 * jnp.pi) + jnp.sum(2 * jnp.log(std) + ((x - mu) / std) ** 2)
    )


@jit
def log_prob_tanh_std_norm(action, mu, std):
    # https://arxiv.org/pdf/1812.05905.pdf eq 26,
    # with tip from openai sac implementation
    return log_pdf_std_norm(action, mu, std) - jnp.sum(
        jnp.log(2) - action - jax.nn.softplus(-2 * action)
    )


@partial(jit, static_argnums=(3,))
def action_with_log_prob(pi, S, eps, pi_fn):
    mu, log_std = pi_fn(pi, S)
    std = jnp.exp(log_std)
    pre_action = mu + std * eps  # equivalent to u~mu(u|s), eq 25 and p 16
    log_prob = log_prob_tanh_std_norm(pre_action, mu, std)
    action = jnp.tanh(pre_action)
    return action, log_prob


@partial(jit, static_argnums=(3,))
def action(pi, S, eps, pi_fn):
    mu, log_std = pi_fn(pi, S)
    std = jnp.exp(log_std)
    return jnp.tanh(mu + std * eps)


@partial(jit, static_argnums=(3,))
def pi_loss(pi, obs, non_grad, fns):
    S, eps = obs
    q, alpha = non_grad
    pi_fn, q_fn = fns

    # https://arxiv.org/pdf/1812.05905.pdf eq. 7
    # TODO: add second Q function and take min! (described on p.8)
    action, log_prob = action_with_log_prob(pi, S, eps, pi_fn)
    return alpha * log_prob - q_fn(q, S, action)


@partial(jit, static_argnums=(3,))
def q_loss(q, obs, non_grad, fns):
    q_fn, pi_fn = fns
    q_targ, pi, gamma, alpha = non_grad
    S, S_n, R, A, eps = obs
    # implements https://arxiv.org/pdf/1812.05905.pdf eq. 5 (substituting in 3)
    # TODO: add second Q function and take min! (described on p.8)
    current_val_est = q_fn(q, S, A)

    A_n, log_prob_A_n = action_with_log_prob(pi, S_n, eps, pi_fn)

    V_n = q_fn(q_targ, S_n, A_n) - alpha * log_prob_A_n  # eq 3

    disc_future_val_est = gamma ** len(R) * V_n
    disc_rewards = jnp.sum(R * gamma ** jnp.arange(0, len(R)))
    return (current_val_est - (disc_rewards + disc_future_val_est)) ** 2


@partial(jit, static_argnums=(3,))
def alpha_loss(alpha, obs, non_grad, fns):
    S, eps = obs
    H_target, pi = non_grad
    pi_fn = fns
    # https://arxiv.org/pdf/1812.05905.pdf eq. 18
    action, log_prob = action_with_log_prob(pi, S, eps, pi_fn)
    return -alpha * (log_prob + H_target)


@partial(jit, static_argnums=(1,))
def batch_grad(params, loss_fn, batch):
    # loss_fn must be a (partially evaled) function that takes only (params, obs)
    def g(params, batch):
        return jnp.mean(jax.vmap(loss_fn, (None, 0))(params, batch))

    return value_and_grad(g)(params, batch)


class Agent:
    def __init__(
        self,
        obs_dim,
        act_dim,
        action_max=2,
        memory_size=1e6,
        batch_size=256,
        td_steps=1,
        discount=0.99,
        LR=3 * 1e-4,
        tau=0.005,
        update_interval=1,
        grad_steps_per_update=1,
        seed=0,
        alpha_0=0.2,
        reward_standardizer=jnn.RewardStandardizer(),
        state_transformer=None,
    ):

        self.obs_dim = obs_dim
        self.act_dim = act_dim
        self.action_max = action_max
        self.memory_size = memory_size
        self.batch_size = batch_size
        self.td_steps = td_steps
        self.gamma = discount
        self.LR = LR
        self.tau = tau
        self.update_interval = update_interval
        self.grad_steps_per_update = grad_steps_per_update
        self.seed = seed

        self.rngkey = jax.random.PRNGKey(seed)

        q_params, q_fn = create_q_net(obs_dim, act_dim, self.new_key())
        self.q_fn = q_fn
        self.q = q_params
        self.q_targ = stu.copy_network(q_params)

        pi_params, pi_fn = create_pi_net(obs_dim, act_dim, self.new_key())
        self.pi_fn = pi_fn
        self.pi = pi_params

        self.H_target = -act_dim
        self.memory_train = ReplayBuffer(
            obs_dim, act_dim, memory_size, reward_steps=td_steps, batch_size=batch_size
        )
        self.reward_standardizer = reward_standardizer
        self.state_transformer = state_transformer
        self.state_transformer_batched = jax.jit(jax.vmap(state_transformer))

        self.alpha = alpha_0

    def normalize_action(self, A):
        return A / self.action_max

    def new_key(self):
        self.rngkey, rngkey = jax.random.split(self.rngkey)
        return rngkey

    def new_eps(self, shape):
        return jax.random.normal(self.new_key(), shape=shape)

    def predict_q(self, S, A):
        return self.q_fn(
            self.q, self.state_transformer_batched(S), self.normalize_action(A)
        )

    def predict_action_and_log_prob(self, S, eps):
        return action_with_log_prob(
            self.pi, self.state_transformer_batched(S), eps, self.pi_fn
        )

    def update(self, LR=None):
        if LR is None:
            LR = self.LR

        S, S_n, A, R, _ = self.memory_train.sample_batch()
        eps = self.new_eps(A.shape)

        def q_loss_agent(params, obs):
            fns = (self.q_fn, self.pi_fn)
            non_grad = (self.q_targ, self.pi, self.gamma, self.alpha)
            return q_loss(params, obs, non_grad, fns)

        def pi_loss_agent(params, obs):
            non_grad = (self.q, self.alpha)
            fns = (self.pi_fn, self.q_fn)
            return pi_loss(params, obs, non_grad, fns)

        def alpha_loss_agent(params, obs):
            non_grad = (self.H_target, self.pi)
            fns = self.pi_fn
            return alpha_loss(params, obs, non_grad, fns)

        q_loss_val, q_grad = batch_grad(self.q, q_loss_agent, (S, S_n, R, A, eps))  # expect: JIT301

        pi_loss_val, pi_grad = batch_grad(self.pi, pi_loss_agent, (S, eps))  # expect: JIT301

        alpha_loss_val, alpha_grad = batch_grad(self.alpha, alpha_loss_agent, (S, eps))  # expect: JIT301

        # TODO look into options beyond simple gradient descent
        self.q = stu.add_gradient(self.q, q_grad, -LR)
        self.q_targ = stu.interpolate_networks(self.q_targ, self.q, self.tau)
        self.pi = stu.add_gradient(self.pi, pi_grad, -LR)
        self.alpha = self.alpha - LR * alpha_grad

        return q_loss_val, pi_loss_val, alpha_loss_val


if __name__ == "__main__":
    np.random.seed(0)
    agent = Agent(3, 1, memory_size=64, batch_size=16, state_transformer=lambda s: s)
    agent.memory_train.fill_random(np.random.default_rng(0))

    sizes = []
    for step in range(4):
        agent.update()
        sizes.append(batch_grad._cache_size())
    print("batch_grad cache entries after each update:", sizes)
    # a stable loss function would compile 3 entries once (q, pi, alpha); here 3 new per step
    assert sizes == [3, 6, 9, 12], sizes
    print("observed: batch_grad recompiled 3x on every update() call")
