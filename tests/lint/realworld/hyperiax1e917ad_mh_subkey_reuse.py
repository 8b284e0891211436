# source: https://github.com/ComputationalEvolutionaryMorphometry/hyperiax/blob/1e917ad75a9143c3f6aa0338c9659720b9a2b809/hyperiax/mcmc/metropolis_hastings.py
# observed on jax 0.10.2 CPU: in every iteration `subkey` is first handed to `proposal` (ParameterStore.propose splits it and draws the proposal noise from the pieces) and then drawn from again for the acceptance uniform; with a typed key and jax_debug_key_reuse the second consumption raises KeyReuseError
# gap: cross-module
# observed: line 98 with a typed key and jax_debug_key_reuse=True, jax.random.uniform(subkey) raises KeyReuseError: subkey was already consumed by proposal() (split in ParameterStore.propose)
# VarianceParameter / ParameterStore (docstrings shortened) are from hyperiax/mcmc/varianceParameter.py and parameterstore.py at the same commit (Parameter ABC dropped).
# log_posterior / proposal are stand-ins modelled on examples/mcmc_Gaussian_BFFG.ipynb at the same commit (the tree backwards filter is replaced by an i.i.d. Gaussian likelihood); inputs and the __main__ block are added.
import traceback

import jax
import jax.numpy as jnp
import numpy as np
from jax.random import split
from jax.scipy.special import gammaln
from tqdm import tqdm


def inverse_gamma_logpdf(x, alpha, beta):
    return alpha * jnp.log(beta) - gammaln(alpha) - (alpha + 1) * jnp.log(x) - beta / x


class VarianceParameter:
    def __init__(self, value, alpha=3., beta=2., proposal_var=.01, keep_constant=False, max=None) -> None:
        self.value = value
        self.alpha = alpha
        self.beta = beta
        self.proposal_var = proposal_var
        self.keep_constant = keep_constant
        self.max = max

    def propose(self, key):
        if self.keep_constant:
            return self

        shape = self.value.shape if hasattr(self.value,'shape') else ()
        new_value = jnp.exp(jnp.log(self.value)+jnp.sqrt(self.proposal_var)*jax.random.normal(key,shape=shape))
        if self.max is not None:
            new_value = jnp.clip(new_value, 0, self.max)
        return VarianceParameter(new_value, self.alpha, self.beta, self.proposal_var, self.keep_constant, self.max)

    def log_prior(self):
        return inverse_gamma_logpdf(self.value,self.alpha,self.beta).sum()


class ParameterStore:
    def __init__(self, params) -> None:
        self.params = params

    def __len__(self):
        return len(self.params)

    def __getitem__(self, key):
        return self.params[key]

    def values(self):
        return {k: v.value for k,v in self.params.items()}

    def propose(self, key):
        pcount = len(self)
        subkeys = split(key, pcount)

        return ParameterStore({
            k: v.propose(rngkey)
            for
            rngkey, (k,v)
            in
            zip(subkeys, self.params.items())
        })

    def log_prior(self):
        return sum([v.log_prior() for v in self.params.values()])


def metropolis_hastings(log_target, proposal, data, init, num_samples, burn_in=0, thin=1, rng_key=None, savef=lambda x: x):
    """ MCMC using Metropolis-Hastings algorithm
    """
    if rng_key is None:
        rng_key = jax.random.PRNGKey(0)

    rng_key, subkey = jax.random.split(rng_key)
    current_state = proposal(data, init, subkey)
    log_likelihood_current = log_target(data,current_state)
    log_likelihoods = []
    samples = []
    accepted_count = 0  # Initialize counter for accepted proposals

    for i in tqdm(range(num_samples + burn_in)):
        rng_key, subkey = jax.random.split(rng_key)

        # Propose a new state
        proposed_state = proposal(data, current_state, subkey)

        # Compute acceptance probability
        log_likelihood_proposed = log_target(data,proposed_state)
        alpha = jnp.minimum(1.0, jnp.exp(log_likelihood_proposed - log_likelihood_current))
        #print(alpha,log_likelihood_proposed,log_likelihood_current,proposed_state[0].values(),current_state[0].values())

        # Decide whether to accept the proposed state
        if jax.random.uniform(subkey) < alpha:  # expect: JIT502
            current_state = proposed_state
            log_likelihood_current = log_likelihood_proposed
            accepted_count += 1  # Increment count if proposal is accepted

        # Save the sample after burn-in and according to thinning rate
        if i >= burn_in and (i - burn_in) % thin == 0:
            log_likelihoods.append(log_likelihood_current)
            samples.append(savef(current_state))

    # acceptance rate
    acceptance_rate = accepted_count / (num_samples + burn_in)
    print(f"Acceptance rate: {acceptance_rate:.4f}")

    return log_likelihoods,samples


# stand-ins for the notebook's model
def log_posterior(data, state):
    params, = state
    log_prior = params.log_prior()
    log_like = jnp.sum(jax.scipy.stats.norm.logpdf(data, 0., jnp.sqrt(params['variance'].value)))
    return log_prior + log_like


def proposal(data, state, key):
    params, = state
    new_params = params.propose(key)

    return new_params,


if __name__ == "__main__":
    leaf_values = jnp.asarray(np.random.default_rng(0).normal(0., np.sqrt(.5), size=(20, 2)))
    init_params = ParameterStore({
        'variance': VarianceParameter(.25),
        'obs_var': VarianceParameter(.01, alpha=3, beta=.5, keep_constant=True),
    })
    init_state = init_params,

    # the sampler itself runs (with the user's raw PRNGKey) ...
    lls, samples = metropolis_hastings(log_posterior, proposal, leaf_values, init_state, 20, burn_in=5,
                                       rng_key=jax.random.PRNGKey(42), savef=lambda state: state[0])
    assert len(samples) == 20

    # ... but each iteration consumes `subkey` twice: once in proposal(), once for the uniform.
    jax.config.update("jax_debug_key_reuse", True)
    try:
        metropolis_hastings(log_posterior, proposal, leaf_values, init_state, 5, burn_in=0,
                            rng_key=jax.random.key(42), savef=lambda state: state[0])
    except jax.errors.KeyReuseError:
        frames = [f for f in traceback.extract_tb(__import__("sys").exc_info()[2]) if f.filename == __file__]
        assert "jax.random.uniform(subkey)" in frames[-1].line, frames[-1]
        print("KeyReuseError at line", frames[-1].lineno, ":", frames[-1].line)
    else:
        raise SystemExit("expected KeyReuseError")
