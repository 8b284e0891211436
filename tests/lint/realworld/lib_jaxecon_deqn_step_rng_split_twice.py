# source: https://github.com/MatiasCovarrubias/jaxecon/blob/57e1821d3ef17b1c7affc64aa91c5cdfdc27e840/DEQN/algorithm/epoch_train.py
#   (create_epoch_train_fn verbatim, with create_episode_simul_fn from DEQN/algorithm/simulation.py,
#   create_batch_loss_fn from DEQN/algorithm/loss.py, the RBC Model from
#   DEQN/econ_models/RBC/model.py (get_aggregates left out) and NeuralNet from
#   DEQN/neural_nets/neural_nets.py, all at the same commit; the in-function imports of
#   create_epoch_train_fn dropped, as everything is in this module. The __main__ block follows
#   DEQN/econ_models/RBC/train.py (Model, NeuralNet, TrainState, jax.jit of the epoch
#   function) with a smaller config and typed keys.)
# observed on jax 0.10.2 CPU: with jax_debug_key_reuse on, the jitted epoch raises
#   KeyReuseError ("In random_split, argument 0 is already consumed") at the second split of
#   step_rng: epis_rng and loss_rng are split from one key (split(k, 4) is the first four
#   keys of split(k, 8)), and the permutation draws from step_rng a third time behind that
#   error. The episode simulation, called alone as train.py does after training, raises the
#   same error where epis_rng, already split by initial_state, is split again for the periods.
# gap: other
from typing import Sequence

import flax.linen as nn
import jax
from jax import lax, random
from jax import numpy as jnp


class Model:
    """RBC model with capital adjustment costs for DEQN training."""

    def __init__(
        self,
        precision=jnp.float32,
        beta=0.96,
        alpha=0.3,
        delta=0.1,
        eps_c=2.0,
        rho=0.9,
        phi=2.0,
        shock_sd=0.02,
        volatility_scale=1.0,
        double_precision=False,
        **kwargs,
    ):
        self.precision = jnp.float64 if double_precision else precision
        self.beta = jnp.array(beta, dtype=self.precision)
        self.alpha = jnp.array(alpha, dtype=self.precision)
        self.delta = jnp.array(delta, dtype=self.precision)
        self.eps_c = jnp.array(eps_c, dtype=self.precision)
        self.rho = jnp.array(rho, dtype=self.precision)
        self.phi = jnp.array(phi, dtype=self.precision)
        self.shock_sd = jnp.array(shock_sd * volatility_scale, dtype=self.precision)

        k_ss_level = (self.alpha / (1 / self.beta - 1 + self.delta)) ** (1 / (1 - self.alpha))
        i_ss_level = self.delta * k_ss_level

        self.k_ss = jnp.log(k_ss_level)
        self.i_ss = jnp.log(i_ss_level)
        self.a_ss = jnp.array(0.0, dtype=self.precision)

        # Standard interface
        self.state_ss = jnp.array([self.k_ss, self.a_ss], dtype=self.precision)
        self.state_sd = jnp.array([1.0, 1.0], dtype=self.precision)
        self.policies_ss = jnp.array([self.i_ss], dtype=self.precision)
        self.policies_sd = jnp.array([1.0], dtype=self.precision)

        self.dim_states = 2
        self.dim_policies = 1
        self.n_sectors = 1

    def initial_state(self, rng, init_range=0):
        """Get initial state with optional perturbation around steady state."""
        rng_k, rng_a = random.split(rng, 2)

        if init_range > 0:
            k_level = random.uniform(
                rng_k,
                minval=(1 - init_range / 100) * jnp.exp(self.k_ss),
                maxval=(1 + init_range / 100) * jnp.exp(self.k_ss),
                dtype=self.precision,
            )
            a_level = random.uniform(
                rng_a,
                minval=-init_range / 100,
                maxval=init_range / 100,
                dtype=self.precision,
            )
        else:
            k_level = jnp.exp(self.k_ss)
            a_level = jnp.array(0.0, dtype=self.precision)

        state_notnorm = jnp.array([jnp.log(k_level), a_level], dtype=self.precision)
        state = (state_notnorm - self.state_ss) / self.state_sd
        return state

    def step(self, state, policy, shock):
        """Transition to next state given current state, policy, and shock."""
        state_notnorm = state * self.state_sd + self.state_ss
        K = jnp.exp(state_notnorm[0])
        a = state_notnorm[1]

        # AR(1) productivity process
        a_next = self.rho * a + self.shock_sd * shock[0]

        # Denormalize policy
        policy_notnorm = policy * self.policies_sd + self.policies_ss
        Inv = jnp.exp(policy_notnorm[0])

        # Capital accumulation with adjustment costs
        K_next = (1 - self.delta) * K + Inv - (self.phi / 2) * (Inv / K - self.delta) ** 2 * K

        state_next_notnorm = jnp.array([jnp.log(K_next), a_next])
        state_next = (state_next_notnorm - self.state_ss) / self.state_sd
        return state_next

    def expect_realization(self, state_next, policy_next):
        """Compute the realization of expectation terms for the Euler equation."""
        state_next_notnorm = state_next * self.state_sd + self.state_ss
        K_next = jnp.exp(state_next_notnorm[0])
        A_next = jnp.exp(state_next_notnorm[1])

        policy_next_notnorm = policy_next * self.policies_sd + self.policies_ss
        Inv_next = jnp.exp(policy_next_notnorm[0])

        Y_next = A_next * K_next**self.alpha
        C_next = Y_next - Inv_next
        P_next = C_next ** (-1 / self.eps_c)

        # Price of capital with adjustment costs
        Pk_next = P_next / (1 - self.phi * (Inv_next / K_next - self.delta))

        # RHS of Euler equation
        expect_realization = P_next * (self.alpha * Y_next / K_next) + Pk_next * (
            (1 - self.delta) + (self.phi / 2) * (Inv_next**2 / K_next**2 - self.delta**2)
        )
        return expect_realization

    def loss(self, state, expect, policy):
        """Compute Euler equation residual (loss) for given state, expectation, and policy."""
        state_notnorm = state * self.state_sd + self.state_ss
        K = jnp.exp(state_notnorm[0])
        A = jnp.exp(state_notnorm[1])

        policy_notnorm = policy * self.policies_sd + self.policies_ss
        Inv = jnp.exp(policy_notnorm[0])

        Y = A * K**self.alpha
        C = Y - Inv
        P = C ** (-1 / self.eps_c)

        # Price of capital
        Pk = P / (1 - self.phi * (Inv / K - self.delta))

        # LHS of Euler: Pk = beta * E[...]
        MPK = self.beta * expect
        euler_residual = Pk / MPK - 1

        losses_array = jnp.array([euler_residual])
        mean_loss = jnp.mean(losses_array**2)
        mean_accuracy = jnp.mean(1 - jnp.abs(losses_array))
        min_accuracy = jnp.min(1 - jnp.abs(losses_array))
        mean_accuracies_focs = 1 - jnp.abs(losses_array)
        min_accuracies_focs = 1 - jnp.abs(losses_array)

        return mean_loss, mean_accuracy, min_accuracy, mean_accuracies_focs, min_accuracies_focs

    def sample_shock(self, rng, n_draws=1):
        """Sample shock realizations."""
        return random.normal(rng, shape=(n_draws,), dtype=self.precision)

    def mc_shocks(self, rng=None, mc_draws=8):
        """Sample Monte Carlo shock realizations for expectation computation."""
        if rng is None:
            rng = random.PRNGKey(0)
        return random.normal(rng, shape=(mc_draws, 1), dtype=self.precision)


class NeuralNet(nn.Module):
    features: Sequence[int]
    precision: jnp.dtype  # Default precision

    @nn.compact
    def __call__(self, x):
        for feat in self.features[:-1]:
            x = nn.relu(nn.Dense(feat, param_dtype=self.precision)(x))
        x = nn.softplus(nn.Dense(self.features[-1], param_dtype=self.precision)(x))
        return x


def create_episode_simul_fn(econ_model, config):
    """Create a function that simulates an episode of the environment. It returns the observations of the episode."""

    def sample_epis_obs(train_state, epis_rng):
        "sample obs of an episode"
        init_obs = econ_model.initial_state(epis_rng, config["init_range"])
        period_rngs = random.split(epis_rng, config["periods_per_epis"])  # expect: JIT502

        def period_step(env_obs, period_rng):
            policy = train_state.apply_fn(train_state.params, env_obs)
            period_shock = config["simul_vol_scale"] * econ_model.sample_shock(period_rng)  # Sample next obs
            obs_next = econ_model.step(env_obs, policy, period_shock)  # apply period steps.
            return obs_next, obs_next  # we pass it two times because of the syntax of the lax.scan loop

        _, epis_obs = lax.scan(period_step, init_obs, jnp.stack(period_rngs))  # we get the obs_batch
        return epis_obs

    return sample_epis_obs


def create_batch_loss_fn(econ_model, config):

    def batch_loss_fn(params, train_state, batch_obs, loss_rng):
        """Loss function of a batch of obs."""
        period_mc_rngs = random.split(loss_rng, batch_obs.shape[0])
        batch_policies = train_state.apply_fn(params, batch_obs)

        def period_loss(obs, policy, period_mc_rng):
            """Loss function for an individual period."""
            mc_shocks = econ_model.mc_shocks(period_mc_rng, config["mc_draws"])
            mc_nextobs = jax.vmap(econ_model.step, in_axes=(None, None, 0))(obs, policy, mc_shocks)
            mc_nextpols = train_state.apply_fn(params, mc_nextobs)
            expect = jax.lax.stop_gradient(
                jnp.mean(jax.vmap(econ_model.expect_realization)(mc_nextobs, mc_nextpols), axis=0)
            )
            mean_loss, mean_accuracy, min_accuracy, mean_accs_foc, min_accs_foc = econ_model.loss(obs, expect, policy)
            return mean_loss, mean_accuracy, min_accuracy, mean_accs_foc, min_accs_foc

        # parallelize callculation of period_loss for the entire batch
        losses_metrics = jax.vmap(period_loss)(batch_obs, batch_policies, jnp.stack(period_mc_rngs))
        mean_losses, mean_accuracies, min_accuracies, mean_accs_foc, min_accs_foc = losses_metrics
        mean_loss = jnp.mean(mean_losses)  # average accross periods
        mean_accuracy = jnp.mean(mean_accuracies)
        min_accuracy = jnp.min(min_accuracies)
        mean_accs_foc = jnp.mean(mean_accs_foc, axis=0)  # average across period for each set of focs
        min_accs_foc = jnp.min(min_accs_foc, axis=0)
        loss_metrics = mean_loss, mean_accuracy, min_accuracy, mean_accs_foc, min_accs_foc
        return mean_loss, loss_metrics

    return batch_loss_fn


def create_epoch_train_fn(econ_model, config):

    episode_simul_fn = create_episode_simul_fn(econ_model, config)
    batch_loss_fn = create_batch_loss_fn(econ_model, config)

    def batch_train_fn(train_state, batch_obs, loss_rng):
        grad_fn = jax.value_and_grad(batch_loss_fn, has_aux=True)
        (_, batch_metrics), grads = grad_fn(train_state.params, train_state, batch_obs, loss_rng)
        grads = jax.lax.pmean(grads, axis_name="batch")
        train_state = train_state.apply_gradients(grads=grads)
        return train_state, batch_metrics

    def step_train_fn(train_state, step_rng):
        epis_rng = random.split(step_rng, config["epis_per_step"])
        loss_rng = random.split(step_rng, config["n_batches"])  # expect: JIT502
        step_obs = jax.vmap(episode_simul_fn, in_axes=(None, 0))(train_state, jnp.stack(epis_rng))
        step_obs = step_obs.reshape(
            config["periods_per_step"], econ_model.state_ss.shape[0]
        )  # combine all periods in one axis
        step_obs = random.permutation(step_rng, step_obs, axis=0)  # reshuffle obs at random  # tolerate: JIT502
        step_obs = step_obs.reshape(
            config["n_batches"], config["batch_size"], econ_model.state_ss.shape[0]
        )  # reshape to into batches
        train_state, step_metrics = jax.vmap(
            batch_train_fn, in_axes=(None, 0, 0), out_axes=(None, 0), axis_name="batch"
        )(train_state, step_obs, jnp.stack(loss_rng))
        mean_losses, mean_accuracies, min_accuracies, _, _ = step_metrics
        mean_loss = jnp.mean(mean_losses)
        mean_accuracy = jnp.mean(mean_accuracies)
        min_accuracy = jnp.min(min_accuracies)
        metrics = mean_loss, mean_accuracy, min_accuracy
        return train_state, metrics

    def epoch_train_fn(train_state, epoch_rng):
        """Vectorise and repeat the update to complete an epoch, made aout of steps_per_epoch episodes."""
        epoch_rng, *step_rngs = random.split(epoch_rng, config["steps_per_epoch"] + 1)
        train_state, epoch_metrics = lax.scan(step_train_fn, train_state, jnp.stack(step_rngs))
        return train_state, epoch_rng, epoch_metrics

    return epoch_train_fn


if __name__ == "__main__":
    import traceback

    import optax
    from flax.training import train_state

    def raised_at(fn, *args):
        try:
            fn(*args)
        except jax.errors.KeyReuseError as err:
            frames = [f for e in (err, err.__cause__) if e is not None
                      for f in traceback.extract_tb(e.__traceback__)]
            return {f.lineno for f in frames if f.filename == __file__}
        raise SystemExit("no KeyReuseError")

    config = {"mc_draws": 4, "init_range": 5, "simul_vol_scale": 1.0,
              "periods_per_epis": 8, "epis_per_step": 4, "steps_per_epoch": 2}
    config["periods_per_step"] = config["periods_per_epis"] * config["epis_per_step"]
    config["batch_size"] = 4
    config["n_batches"] = config["periods_per_step"] // config["batch_size"]

    econ_model = Model()
    neural_net = NeuralNet(features=[8, 8, econ_model.dim_policies], precision=jnp.float32)
    rng = random.key(42)
    rng, rng_init, rng_epoch = random.split(rng, 3)
    params = neural_net.init(rng_init, jnp.zeros_like(econ_model.state_ss))
    train_state_obj = train_state.TrainState.create(
        apply_fn=neural_net.apply, params=params, tx=optax.adam(1e-3)
    )

    jax.config.update("jax_debug_key_reuse", True)
    epoch_train_fn = jax.jit(create_epoch_train_fn(econ_model, config))
    # observed: line 252 splits step_rng, already split for epis_rng: KeyReuseError
    assert 252 in raised_at(epoch_train_fn, train_state_obj, rng_epoch)
    simul_fn = create_episode_simul_fn(econ_model, config)
    # observed: line 192 splits epis_rng, which initial_state split already: KeyReuseError
    assert 192 in raised_at(simul_fn, train_state_obj, rng)
