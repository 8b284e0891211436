# source: https://github.com/LeCAR-Lab/CoVO-MPC/issues/19 (code: https://github.com/LeCAR-Lab/CoVO-MPC/blob/f0907cbf4fd4a33d74e23c704e5209d11222fae4/quadjax/controllers/mppi.py; fixed in commit 1d1caebe526a9abeba3edb711b8cbced9a5882ea "solve MPPI bugs")
# observed on jax 0.10.2 CPU: the same per-sample key is fed to multivariate_normal at every horizon step, so every sampled action sequence repeats one noise vector over the whole horizon; after one MPPI update all H rows of a_mean are identical
# gap: other
# observed: line 59 the one per-sample key is reused by multivariate_normal at all H horizon steps (vmap over mean/cov only); __main__ shows all H rows of the updated a_mean are equal
# added: BaseController inlined from quadjax/controllers/base.py; a stand-in 2D point-mass env (PointEnv, EnvState, EnvParams) for quadjax's quadrotor env; jax.tree_map renamed jax.tree.map; unused imports (pickle, jaxopt, quadjax.dynamics, quadjax.train) dropped; __main__ block
import jax
import chex
from flax import struct
from functools import partial
from jax import lax
from jax import numpy as jnp


class BaseController:
    def __init__(self, env, control_params) -> None:
        self.env = env
        self.init_control_params = control_params

    def update_params(self, env_params, control_params):
        return control_params

    def reset(self):
        return self.init_control_params


@struct.dataclass
class MPPIParams:
    gamma_mean: float # mean of gamma
    gamma_sigma: float # std of gamma
    discount: float # discount factor
    sample_sigma: float # std of sampling

    a_mean: jnp.ndarray # mean of action
    a_cov: jnp.ndarray # covariance matrix of action

class MPPIController(BaseController):
    def __init__(self, env, control_params, N: int, H: int, lam: float) -> None:
        super().__init__(env, control_params)
        self.N = N # NOTE: N is the number of samples, set here as a static number
        self.H = H
        self.lam = lam

    @partial(jax.jit, static_argnums=(0,))
    def __call__(self, obs:jnp.ndarray, state, env_params, rng_act: chex.PRNGKey, control_params: MPPIParams, info = None) -> jnp.ndarray:
        # shift operator
        a_mean_old = control_params.a_mean
        a_cov_old = control_params.a_cov

        control_params = control_params.replace(a_mean=jnp.concatenate([a_mean_old[1:], a_mean_old[-1:]]),
                                                 a_cov=jnp.concatenate([a_cov_old[1:], a_cov_old[-1:]]))
        
        # sample action with mean and covariance, repeat for N times to get N samples with shape (N, H, action_dim)
        # a_mean shape (H, action_dim), a_cov shape (H, action_dim, action_dim)
        rng_act, act_key = jax.random.split(rng_act)
        act_keys = jax.random.split(act_key, self.N)

        # DEBUG
        def single_sample(key, traj_mean, traj_cov):
            return jax.vmap(lambda mean, cov: jax.random.multivariate_normal(key, mean, cov))(traj_mean, traj_cov)  # expect: JIT502
        # repeat single_sample N times to get N samples
        a_sampled = jax.vmap(single_sample, in_axes=(0, None, None))(act_keys, control_params.a_mean, control_params.a_cov)
        a_sampled = jnp.clip(a_sampled, -1.0, 1.0) # (N, H, action_dim)
        # rollout to get reward with lax.scan
        rng_act, step_key = jax.random.split(rng_act)
        def rollout_fn(carry, action):
            state, params, reward_before, done_before = carry
            obs, state, reward, done, info = jax.vmap(lambda s, a, p: self.env.step_env_wocontroller(step_key, s, a, p))(state, action, params)
            reward = jnp.where(done_before, reward_before, reward)
            return (state, params, reward, done | done_before), (reward, state.pos)
        # repeat state each element to match the sample size N
        state_repeat = jax.tree.map(lambda x: jnp.repeat(jnp.asarray(x)[None, ...], self.N, axis=0), state)
        env_params_repeat = jax.tree.map(lambda x: jnp.repeat(jnp.asarray(x)[None, ...], self.N, axis=0), env_params)
        done_repeat = jnp.full(self.N, False)
        reward_repeat = jnp.full(self.N, 0.0)

        _, (rewards, poses) = lax.scan(rollout_fn, (state_repeat, env_params_repeat, reward_repeat, done_repeat), a_sampled.transpose(1,0,2), length=self.H)
        # get discounted reward sum over horizon (axis=1)
        rewards = rewards.transpose(1,0) # (H, N) -> (N, H)
        discounted_rewards = jnp.sum(rewards * jnp.power(control_params.discount, jnp.arange(self.H)), axis=1, keepdims=False)
        # get cost
        cost = -discounted_rewards

        # get trajectory weight
        cost_exp = jnp.exp(-(cost-jnp.min(cost)) / self.lam)

        weight = cost_exp / jnp.sum(cost_exp)

        # update trajectory mean and covariance with weight
        a_mean = jnp.sum(weight[:, None, None] * a_sampled, axis=0) * control_params.gamma_mean + control_params.a_mean * (1 - control_params.gamma_mean)
        a_cov = jnp.sum(weight[:, None, None, None] * ((a_sampled - a_mean)[..., None] * (a_sampled - a_mean)[:, :, None, :]), axis=0) * control_params.gamma_sigma + control_params.a_cov * (1 - control_params.gamma_sigma)
        control_params = control_params.replace(a_mean=a_mean, a_cov=a_cov)

        # get action
        u = control_params.a_mean[0]

        # debug values
        info = {
            'pos_mean': jnp.mean(poses, axis=1), 
            'pos_std': jnp.std(poses, axis=1)
        }

        return u, control_params, info


# ---- stand-in environment (not from the source) ----
@struct.dataclass
class EnvState:
    pos: jnp.ndarray
    vel: jnp.ndarray


@struct.dataclass
class EnvParams:
    dt: float = 0.05
    target: jnp.ndarray = struct.field(default_factory=lambda: jnp.array([1.0, 0.5]))


class PointEnv:
    def step_env_wocontroller(self, key, state, action, params):
        vel = state.vel + action * params.dt
        pos = state.pos + vel * params.dt
        new_state = EnvState(pos=pos, vel=vel)
        reward = -jnp.sum((pos - params.target) ** 2)
        return pos, new_state, reward, jnp.array(False), {}


if __name__ == "__main__":
    H, N = 8, 64
    params = MPPIParams(gamma_mean=1.0, gamma_sigma=0.0, discount=0.99, sample_sigma=0.2,
                        a_mean=jnp.zeros((H, 2)), a_cov=jnp.tile(jnp.eye(2) * 0.04, (H, 1, 1)))
    ctrl = MPPIController(PointEnv(), params, N=N, H=H, lam=0.1)
    state = EnvState(pos=jnp.zeros(2), vel=jnp.zeros(2))
    u, new_params, info = ctrl(state.pos, state, EnvParams(), jax.random.PRNGKey(1), params)
    rows_equal = bool(jnp.allclose(new_params.a_mean, new_params.a_mean[0]))
    print("all horizon rows of the updated a_mean equal:", rows_equal)
    assert rows_equal  # the noise does not vary along the horizon
