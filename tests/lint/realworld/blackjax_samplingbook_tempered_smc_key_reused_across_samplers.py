# source: https://github.com/blackjax-devs/sampling-book/blob/d4c3ffda6a08e36ea34e14f86ad7a09eb18df986/book/algorithms/TemperedSMC.md
#   (the bimodal-potential half of BlackJAX's "Use Tempered SMC" notebook, before
#   https://github.com/blackjax-devs/sampling-book/pull/46 split a fresh key for each sampler)
# observed on jax 0.10.2 CPU with blackjax 1.7.1: `key` drives the HMC chain, then the NUTS
#   chain (line 80) and the tempered SMC run (line 130) are handed the same, already
#   consumed key: NUTS steps with exactly the HMC chain's keys (both first momenta are
#   -0.7198), and the SMC loop's first subkey, `split(key, 2)[1]`, is the HMC chain's
#   second step key (split keys do not depend on the count). Current spellings: the SMC
#   parameters go through `extend_params(...)` and `state.lmbda` is
#   `state.tempering_param` (blackjax 1.7). The plots and `jax_platform_name` are left out;
#   chains are 100 steps (10_000 in the notebook).
# gap: other
# unverifiable: needs blackjax, which the test extra does not install (verified when collected, on jax 0.10.2 with blackjax installed)
import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.stats import multivariate_normal

import blackjax
import blackjax.smc.resampling as resampling
from blackjax.smc import extend_params


def V(x):
    return 5 * jnp.square(jnp.sum(x**2) - 1)


def prior_log_prob(x):
    d = x.shape[0]
    return multivariate_normal.logpdf(x, jnp.zeros((d,)), jnp.eye(d))


linspace = jnp.linspace(-2, 2, 5000).reshape(-1, 1)
lambdas = jnp.linspace(0.0, 1.0, 5)
prior_logvals = jnp.vectorize(prior_log_prob, signature="(d)->()")(linspace)
potential_vals = jnp.vectorize(V, signature="(d)->()")(linspace)
log_res = prior_logvals.reshape(1, -1) - jnp.expand_dims(
    lambdas, 1
) * potential_vals.reshape(1, -1)

density = jnp.exp(log_res)
normalizing_factor = jnp.sum(density, axis=1, keepdims=True) * (
    linspace[1] - linspace[0]
)
density /= normalizing_factor


def inference_loop(rng_key, mcmc_kernel, initial_state, num_samples):
    @jax.jit
    def one_step(state, k):
        state, _ = mcmc_kernel(k, state)
        return state, state

    keys = jax.random.split(rng_key, num_samples)
    _, states = jax.lax.scan(one_step, initial_state, keys)

    return states


def full_logdensity(x):
    return -V(x) + prior_log_prob(x)


inv_mass_matrix = jnp.eye(1)
n_samples = 100

key = jax.random.key(42)

hmc_parameters = dict(
    step_size=1e-4, inverse_mass_matrix=inv_mass_matrix, num_integration_steps=50
)

hmc = blackjax.hmc(full_logdensity, **hmc_parameters)
hmc_state = hmc.init(jnp.ones((1,)))
hmc_samples = inference_loop(key, hmc.step, hmc_state, n_samples)

nuts_parameters = dict(step_size=1e-4, inverse_mass_matrix=inv_mass_matrix)

nuts = blackjax.nuts(full_logdensity, **nuts_parameters)
nuts_state = nuts.init(jnp.ones((1,)))
nuts_samples = inference_loop(key, nuts.step, nuts_state, n_samples)  # expect: JIT502


def smc_inference_loop(rng_key, smc_kernel, initial_state):
    """Run the temepered SMC algorithm.

    We run the adaptive algorithm until the tempering parameter lambda reaches the value
    lambda=1.

    """

    def cond(carry):
        i, state, _k = carry
        return state.tempering_param < 1

    def one_step(carry):
        i, state, k = carry
        k, subk = jax.random.split(k, 2)
        state, _ = smc_kernel(subk, state)
        return i + 1, state, k

    n_iter, final_state, _ = jax.lax.while_loop(
        cond, one_step, (0, initial_state, rng_key)
    )

    return n_iter, final_state


loglikelihood = lambda x: -V(x)

hmc_parameters = dict(
    step_size=1e-4, inverse_mass_matrix=inv_mass_matrix, num_integration_steps=1
)

tempered = blackjax.adaptive_tempered_smc(
    prior_log_prob,
    loglikelihood,
    blackjax.hmc.build_kernel(),
    blackjax.hmc.init,
    extend_params(hmc_parameters),
    resampling.systematic,
    0.5,
    num_mcmc_steps=1,
)

initial_smc_state = jax.random.multivariate_normal(
    jax.random.key(0), jnp.zeros([1]), jnp.eye(1), (n_samples,)
)
initial_smc_state = tempered.init(initial_smc_state)

n_iter, smc_samples = smc_inference_loop(key, tempered.step, initial_smc_state)  # expect: JIT502
print("Number of steps in the adaptive algorithm: ", n_iter.item())

if __name__ == "__main__":
    # the step keys inference_loop makes from `key` for the HMC chain
    step_keys = jax.random.split(key, n_samples)  # tolerate: JIT502
    _, hmc_info = hmc.step(step_keys[0], hmc_state)
    _, nuts_info = nuts.step(step_keys[0], nuts_state)  # tolerate: JIT502
    # observed: line 80 runs NUTS on the HMC chain's keys: the first momenta are equal
    assert float(hmc_info.momentum[0]) == float(nuts_info.momentum[0])
    _, smc_first_key = jax.random.split(key, 2)  # tolerate: JIT502
    # observed: line 130 starts the SMC run on a key of the HMC chain's stream
    assert bool((jax.random.key_data(smc_first_key)
                 == jax.random.key_data(step_keys[1])).all())
