# source: https://github.com/MatiasCovarrubias/jaxecon/blob/6d8f96f3cb7a846a149f036e2aabe78707ea5a23/APG/algorithm/simulation.py
#   (an economist's analytic-policy-gradient code: simul_episode hands epis_rng to env.reset
#   and then splits the same epis_rng into the per-period keys; the commented-out line shows
#   the split that was meant to come first)
# observed on jax 0.10.2 CPU: env.reset (RbcMultiSector.reset, another module of the repo)
#   splits epis_rng in two and draws the initial capital K from the first half; simul_episode
#   then splits epis_rng again, so period_rngs[0] is that same key, and the first period's
#   productivity shock is drawn (normal) from the key that already drew K (uniform): under
#   jit, trajectory.obs[0] equals rho * a0 + sd * normal(split(epis_rng, 2)[0]).
# gap: cross-module
# added: imports of optax and flax's TrainState, the RbcMultiSector environment from
#   APG/environments/RbcMultiSector.py at commit 72dae3333b1c758807dc2e5bfc3ca73560fec5d1 (its
#   __init__, reset and step, unchanged; in the repo it is another module), a stand-in
#   flax TrainState whose apply_fn returns a zero action and a unit value, and the __main__ block.
import optax
from flax.training.train_state import TrainState
from typing import NamedTuple
from jax import numpy as jnp, random
import jax


class RbcMultiSector:
    """A JAX implementation of a multi-sector Ratiasc2
    BC model."""

    def __init__(
        self,
        N=2,
        beta=0.96,
        alpha_values=0.3,
        delta_values=0.1,
        rho_values=0.9,
        shock_sd=0.1,
        xi_values=None,
        sigma_c=0.5,
        discount_rate=None,
    ):

        self.N = N
        self.beta = beta
        self.alpha = jnp.ones(N) * alpha_values
        self.delta = jnp.ones(N) * delta_values
        self.rho = jnp.ones(N) * rho_values
        self.discount_rate = beta if discount_rate is None else discount_rate
        self.shock_sd = jnp.ones(N) * shock_sd
        self.sigma_c = sigma_c
        self.xi = jnp.ones(N) / N if xi_values is None else xi_values

        # Calculate steady state values
        self.k_ss = jnp.log((self.alpha / (1 / self.beta - 1 + self.delta)) ** (1 / (1 - self.alpha)))
        self.a_ss = jnp.zeros(N)
        self.obs_ss = jnp.concatenate([self.k_ss, self.a_ss])
        self.obs_sd = jnp.ones(2 * N)
        self.policy_ss = jnp.log(self.delta * jnp.exp(self.k_ss))
        self.policy_sd = jnp.ones(N)

        # Steady state rewards and value
        self.I_ss = jnp.exp(self.policy_ss)
        self.K_ss = jnp.exp(self.k_ss)
        self.A_ss = jnp.exp(self.a_ss)
        self.Y_ss = self.A_ss * self.K_ss**self.alpha
        self.C_ss = self.Y_ss - jnp.exp(self.policy_ss)
        self.Cagg_ss = jnp.sum(self.xi ** (self.sigma_c ** (-1)) * self.C_ss ** (1 - self.sigma_c ** (-1))) ** (
            1 / (1 - self.sigma_c ** (-1))
        )
        self.reward_ss = jnp.log(self.Cagg_ss)
        self.value_ss = self.reward_ss / (1 - self.beta)

        # Utility variables
        self.obs_dim = 2 * N
        self.state_dim = 2 * N
        self.action_dim = N

    def reset(self, rng):
        """Get initial obs given first shock"""
        rng_k, rng_a = random.split(rng, 2)
        K = random.uniform(rng_k, shape=(self.N,), minval=0.95 * jnp.exp(self.k_ss), maxval=1.05 * jnp.exp(self.k_ss))
        A = random.uniform(rng_a, shape=(self.N,), minval=0.95 * jnp.exp(self.a_ss), maxval=1.05 * jnp.exp(self.a_ss))

        obs_init_notnorm = jnp.concatenate([jnp.log(K), jnp.log(A)])
        obs_init = (obs_init_notnorm - self.obs_ss) / self.obs_sd  # normalize
        state_init = obs_init
        return obs_init, state_init

    def step(self, rng, state, action):
        """A period step of the model, given current obs and policy"""

        # Process observation
        obs = state
        obs_notnorm = obs * self.obs_sd + self.obs_ss  # denormalize
        K = jnp.exp(obs_notnorm[: self.N])
        a = obs_notnorm[self.N :]

        # Evolution of state
        a_tplus1 = self.rho * a + self.shock_sd * random.normal(rng, (self.N,))
        action_notnorm = action * self.policy_sd + self.policy_ss
        Inv = jnp.exp(action_notnorm)
        K_tplus1 = (1 - self.delta) * K + Inv

        # New observation and state
        new_obs_notnorm = jnp.concatenate([jnp.log(K_tplus1), a_tplus1])
        new_obs = (new_obs_notnorm - self.obs_ss) / self.obs_sd  # normalize
        new_state = new_obs

        # Reward
        A = jnp.exp(a)
        Y = A * K**self.alpha
        C = Y - Inv
        Cagg = jnp.sum(self.xi ** (self.sigma_c ** (-1)) * C ** (1 - self.sigma_c ** (-1))) ** (
            1 / (1 - self.sigma_c ** (-1))
        )
        reward = jnp.log(Cagg)

        # Done, Info
        done = jnp.array(False)
        info = jnp.array([0.0])

        return new_obs, new_state, reward, done, info


class Transition(NamedTuple):
    done: jax.Array
    action: jax.Array
    value: jax.Array
    reward: jax.Array
    obs: jax.Array
    info: jax.Array


class Metrics(NamedTuple):
    mean_loss: jax.Array
    mean_actor_loss: jax.Array
    mean_value_loss: jax.Array


def create_simul_episode_fn(env, periods_per_epis):

    def simul_episode(params, train_state, epis_rng):
        obs, env_state = env.reset(epis_rng)
        period_rngs = random.split(epis_rng, periods_per_epis)  # expect: JIT502
        # epis_rng, *period_rngs = random.split(epis_rng, periods_per_epis + 1)
        runner_state = params, env_state, obs, 0, 1

        def period_step(runner_state, period_rng):
            params, env_state, obs, returns, discount = runner_state
            # SELECT ACTION
            action, value_notnorm = train_state.apply_fn(params, obs)
            value = value_notnorm * env.value_ss

            # STEP ENV
            obs, env_state, reward, done, info = env.step(period_rng, env_state, action)
            transition = Transition(done, action, value, reward, obs, info)
            returns = returns + discount * reward
            discount = env.discount_rate * discount
            runner_state = (params, env_state, obs, returns, discount)
            return runner_state, transition

        # GET TRAJECTORIES
        runner_state, trajectory = jax.lax.scan(period_step, runner_state, jnp.stack(period_rngs))

        # CALCULATE DISCOUNTED RETURN AND LAST VALUE
        _, _, last_obs, returns, discount = runner_state
        _, last_val_notnorm = train_state.apply_fn(train_state.params, last_obs)
        last_val = last_val_notnorm * env.value_ss
        returns = returns + discount * last_val

        return returns, trajectory, last_val

    return simul_episode


if __name__ == "__main__":
    env = RbcMultiSector(N=2)
    train_state = TrainState.create(
        apply_fn=lambda params, obs: (jnp.zeros(env.N) + params, jnp.array(1.0) + params),
        params=jnp.zeros(()),
        tx=optax.sgd(1e-3),
    )
    simul_episode = jax.jit(create_simul_episode_fn(env, periods_per_epis=5))
    epis_rng = random.PRNGKey(3)
    returns, trajectory, last_val = simul_episode(train_state.params, train_state, epis_rng)

    # what reset drew K from, and the state the episode starts in
    rng_k, rng_a = random.split(epis_rng, 2)
    obs0, _ = env.reset(epis_rng)
    a0 = (obs0 * env.obs_sd + env.obs_ss)[env.N:]
    a1 = (trajectory.obs[0] * env.obs_sd + env.obs_ss)[env.N:]
    # observed: line 140 gives period 0 the key rng_k that reset already drew K from: the first
    #   productivity shock is normal(rng_k), not an independent draw
    assert bool((random.split(epis_rng, 5)[0] == rng_k).all())
    assert jnp.allclose(a1, env.rho * a0 + env.shock_sd * random.normal(rng_k, (env.N,)), atol=1e-5)
