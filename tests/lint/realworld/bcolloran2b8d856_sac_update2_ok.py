# source: https://github.com/bcolloran/deep_rl_experiments/blob/2b8d856f4fe4d01768dbc47f34e55805488fbc82/jax/SAC_agent.py
# observed on jax 0.10.2 CPU: runs clean; Agent.update_2 passes the module-level jitted loss functions and a SAC_fns NamedTuple of the same jitted nets as static arguments of batch_grad_2, so repeated updates reuse the compiled code (the fix of the per-step recompile in the earlier update(), commit message "redo update (MUCH FASTER!)").
# gap: other
# (renamed old APIs: jax.experimental.stax -> jax.example_libraries.stax, jax.tree_multimap -> jax.tree_util.tree_map)
# (stand-ins for the repo's helper modules: stax_nn_utils (copy_network, interpolate_networks, add_gradient, copied from the repo),
#  replay_buffer.ReplayBuffer (sample_batch of the repo; fill_random is a small stand-in), jax_nn_utils.RewardStandardizer (empty),
#  rl_types / jax_trajectory_utils_2 type aliases; the stale update()/batch_grad it replaced (no longer callable at this commit),
#  remember_episode and the unused dampedSpringNoise import are left out)
import jax
import jax.numpy as jnp
from jax.example_libraries.stax import serial, Relu, Dense, parallel, FanOut
from jax.nn.initializers import he_normal, zeros, ones

from jax import grad, jit, value_and_grad
from functools import partial

import numpy as np

import typing as TT

from collections import namedtuple


# ---- stand-ins: rl_types / jax_trajectory_utils_2 type aliases ----
class RT:
    Tensor = TT.Any
    NNParams = TT.Any
    NNParamsFn = TT.Callable


class JTU:
    PolicyNetFn = TT.Callable


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
        self.Done1 = np.zeros((size, 1))
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


class SAC_fns(TT.NamedTuple):
    pi: RT.NNParamsFn
    q: RT.NNParamsFn


class SAC_params(TT.NamedTuple):
    pi: RT.NNParams
    q: RT.NNParams
    q_targ: RT.NNParams
    alpha: RT.Tensor
    gamma: RT.Tensor
    H_target: RT.Tensor


class SAC_obs(TT.NamedTuple):
    S: RT.Tensor
    A: RT.Tensor
    R: RT.Tensor
    Sn: RT.Tensor
    eps: RT.Tensor


LossFn = TT.Callable[[RT.NNParams, SAC_obs, SAC_params, SAC_fns], RT.Tensor]


def create_pi_net(
    obs_dim: int, action_dim: int, rngkey=jax.random.PRNGKey(0)
) -> TT.Tuple[RT.NNParams, RT.NNParamsFn]:
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


def create_q_net(
    obs_dim, action_dim, rngkey=jax.random.PRNGKey(0)
) -> TT.Tuple[RT.NNParams, RT.NNParamsFn]:
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
def pi_loss(
    pi: RT.NNParams, obs: SAC_obs, non_grad: SAC_params, fns: SAC_fns
) -> RT.Tensor:
    S, eps = obs.S, obs.eps
    # https://arxiv.org/pdf/1812.05905.pdf eq. 7
    # TODO: add second Q function and take min! (described on p.8)
    action, log_prob = action_with_log_prob(pi, S, eps, fns.pi)
    return non_grad.alpha * log_prob - fns.q(non_grad.q, S, action)


@partial(jit, static_argnums=(3,))
def q_loss(
    q: RT.NNParams, obs: SAC_obs, non_grad: SAC_params, fns: SAC_fns
) -> RT.Tensor:
    q_fn, pi_fn = fns.q, fns.pi
    q_targ = non_grad.q_targ
    pi = non_grad.pi
    gamma = non_grad.gamma
    alpha = non_grad.alpha

    S, S_n, R, A, eps = obs.S, obs.Sn, obs.R, obs.A, obs.eps
    # implements https://arxiv.org/pdf/1812.05905.pdf eq. 5 (substituting in 3)
    # TODO: add second Q function and take min! (described on p.8)
    current_val_est = q_fn(q, S, A)

    A_n, log_prob_A_n = action_with_log_prob(pi, S_n, eps, pi_fn)

    V_n = q_fn(q_targ, S_n, A_n) - alpha * log_prob_A_n  # eq 3

    disc_future_val_est = gamma ** len(R) * V_n
    disc_rewards = jnp.sum(R * gamma ** jnp.arange(0, len(R)))
    return (current_val_est - (disc_rewards + disc_future_val_est)) ** 2


@partial(jit, static_argnums=(3,))
def alpha_loss(
    alpha: RT.NNParams, obs: SAC_obs, non_grad: SAC_params, fns: SAC_fns
) -> RT.Tensor:
    S, eps = obs.S, obs.eps
    # https://arxiv.org/pdf/1812.05905.pdf eq. 18
    action, log_prob = action_with_log_prob(non_grad.pi, S, eps, fns.pi)
    return -alpha * (log_prob + non_grad.H_target)


@partial(jit, static_argnums=(0, 4))
def batch_mean_loss(
    loss_fn: LossFn,
    params: RT.NNParams,
    batch: SAC_obs,
    non_grad: SAC_params,
    fns: SAC_fns,
):
    return jnp.mean(
        jax.vmap(loss_fn, (None, 0, None, None))(params, batch, non_grad, fns)
    )


@partial(jit, static_argnums=(0, 4))
def batch_grad_2(
    loss_fn: LossFn,
    params: RT.NNParams,
    batch: SAC_obs,
    non_grad: SAC_params,
    fns: SAC_fns,
) -> TT.Tuple[RT.Tensor, RT.Tensor]:
    # loss_fn must be a (partially evaled) function that takes only (params, obs)
    def batch_mean_loss(params, batch, non_grad, fns):
        return jnp.mean(
            jax.vmap(loss_fn, (None, 0, None, None))(params, batch, non_grad, fns)
        )

    return value_and_grad(batch_mean_loss)(params, batch, non_grad, fns)


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

    def predict_pi(self, state, eps):
        pi_fn = self.pi_fn
        pi = self.pi
        state_transformer_batched = self.state_transformer_batched
        action_max = self.action_max
        return action_max * action(pi, state_transformer_batched(state), eps, pi_fn)

    def predict_pi_opt(self, S):
        return self.predict_pi(S, 0)

    def predict_q(self, S, A):
        return self.q_fn(
            self.q, self.state_transformer_batched(S), self.normalize_action(A)
        )

    def predict_action_and_log_prob(self, S, eps):
        return action_with_log_prob(
            self.pi, self.state_transformer_batched(S), eps, self.pi_fn
        )

    def make_agent_act_fn(self):
        pi_fn = self.pi_fn
        pi = self.pi
        state_transformer = self.state_transformer
        action_max = self.action_max

        if state_transformer is not None:

            def act_fn(state, eps):
                state = state_transformer(state)
                return action_max * action(pi, state, eps, pi_fn)

        else:

            def act_fn(state, eps):
                return action_max * action(pi, state, eps, pi_fn)

        return act_fn

    def make_policynet_act_fn(self) -> JTU.PolicyNetFn:
        pi_fn = self.pi_fn
        state_transformer = self.state_transformer
        action_max = self.action_max

        if state_transformer is not None:

            def act_fn(policy_net, state, eps):
                state = state_transformer(state)
                return action_max * action(policy_net, state, eps, pi_fn)

        else:

            def act_fn(policy_net, state, eps):
                return action_max * action(policy_net, state, eps, pi_fn)

        return act_fn

    def get_SAC_params(self):
        return SAC_params(
            pi=self.pi,
            q=self.q,
            q_targ=self.q_targ,
            alpha=self.alpha,
            gamma=self.gamma,
            H_target=self.H_target,
        )

    def get_SAC_fns(self):
        return SAC_fns(pi=self.pi_fn, q=self.q_fn)

    def update_2(self, LR=None):
        if LR is None:
            LR = self.LR

        S, Sn, A, R, _ = self.memory_train.sample_batch()

        eps = self.new_eps(A.shape)
        batch = SAC_obs(S, A, R, Sn, eps)
        non_grad = self.get_SAC_params()
        fns = self.get_SAC_fns()

        q_loss_val, q_grad = batch_grad_2(q_loss, self.q, batch, non_grad, fns)

        pi_loss_val, pi_grad = batch_grad_2(pi_loss, self.pi, batch, non_grad, fns)

        alpha_loss_val, alpha_grad = batch_grad_2(
            alpha_loss, self.alpha, batch, non_grad, fns
        )

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
    for step in range(5):
        q_l, pi_l, a_l = agent.update_2()
        sizes.append(batch_grad_2._cache_size())
    print("batch_grad_2 cache entries after each update_2:", sizes)
    # one extra trace after the first step (alpha turns from a Python float into an array); stable afterwards
    assert sizes[1:] == [sizes[1]] * 4, sizes
    assert all(bool(jnp.isfinite(v)) for v in (q_l, pi_l, a_l))
    print(agent.predict_pi(np.zeros((2, 3)), np.zeros((2, 1))))
