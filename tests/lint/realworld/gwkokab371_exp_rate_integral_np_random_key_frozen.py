# source: https://github.com/gwkokab/gwkokab/issues/371 ("Random keys are getting fixed by
#   `jax.jit` transform", pointing at lines 215-238 of
#   https://github.com/gwkokab/gwkokab/blob/10f7a979919764982b73f0fe03a37594ffd4cb2c/src/gwkokab/inference/poissonlikelihood.py)
# observed on jax 0.10.2 CPU (numpyro 0.22.0): exp_rate_integral makes its Monte-Carlo key
#   from `np.random.randint`, a host call. Eagerly every call draws a new key and a new
#   estimate of the expected rate; under jax.jit(log_posterior) (the samplers jit it) the
#   integer is drawn once at trace time and baked into the program, so every call reuses
#   the same 8192 uniform samples: repeated jitted calls give bit-identical values while
#   eager calls differ. Kept: exp_rate_integral_uniform_samples, exp_rate_integral,
#   log_likelihood, log_posterior as written. Trimmed: the pytree registration, the
#   vt_params/vt_method properties, set_model and the "model" VT method. Added: stand-ins
#   for gwkokab's debug_flush (no-op), JointDistribution (independent marginals) and the
#   ScaledMixture model (a scaled normal), a uniform log-VT, data, and the __main__ block.
# gap: other
import jax
import numpy as np
from jax import numpy as jnp, random as jrd, tree as jtr
from jax.nn import logsumexp
from numpyro.distributions import Normal, Uniform


def debug_flush(fmt, **kwargs):  # stand-in: gwkokab prints only with its debug flag on
    pass


class JointDistribution:  # stand-in for gwkokab.models.utils.JointDistribution
    def __init__(self, *marginals):
        self.marginal_distributions = list(marginals)

    def sample(self, key, sample_shape=()):
        keys = jrd.split(key, len(self.marginal_distributions))
        return jnp.stack(
            [d.sample(k, sample_shape) for d, k in zip(self.marginal_distributions, keys)],
            axis=-1,
        )

    def log_prob(self, x):
        return sum(d.log_prob(x[..., i]) for i, d in enumerate(self.marginal_distributions))


class ScaledMixture:  # stand-in: one normal component scaled by a rate
    def __init__(self, log_rate, loc):
        self._log_scales = jnp.atleast_1d(log_rate)
        self.loc = loc

    def log_prob(self, x):
        return self._log_scales[0] + Normal(self.loc, 1.0).log_prob(x).sum(-1)


class PoissonLikelihood:
    time: float = 1.0

    def exp_rate_integral_uniform_samples(self, N, key, model):
        samples = self.vt_params_unif_rvs.sample(key, (N,))
        volume = jtr.reduce(
            lambda x, y: x * (y.high - y.low),
            self.vt_params_unif_rvs.marginal_distributions,
            1.0,
            is_leaf=lambda x: isinstance(x, Uniform),
        )
        logpdf = model.log_prob(samples) + self.logVT(
            samples[..., self.vt_params_index]
        )
        return volume * jnp.mean(jnp.exp(logpdf))

    def exp_rate_integral(self, model):
        N = 1 << 13
        key = jrd.PRNGKey(np.random.randint(1, 2**32 - 1))  # expect: JIT204
        if self.vt_method == "uniform":
            vt_value = self.exp_rate_integral_uniform_samples(N, key, model)
        elif self.vt_method == "custom":
            vt_value = self.custom_vt(N, key, model)
        else:
            raise ValueError("Invalid VT method.")
        vt_value *= self.time
        debug_flush("exp_rate_integral: {vt_value}", vt_value=vt_value)
        return vt_value

    def log_likelihood(self, x, data):
        model = self.model(
            **{name: x[..., i] for name, i in self.variables_index.items()}
        )

        log_likelihood = jtr.reduce(
            lambda x, y: x
            + logsumexp(model.log_prob(y) - self.ref_priors.log_prob(y), axis=-1)
            - jnp.log(y.shape[0]),
            data["data"],
            jnp.zeros(()),
        )

        debug_flush("model_log_likelihood: {mll}", mll=log_likelihood)

        expected_rates = self.exp_rate_integral(model)

        debug_flush("expected_rate={expr}", expr=expected_rates)

        return log_likelihood - expected_rates

    def log_posterior(self, x, data=None):
        log_prior = self.priors.log_prob(x)
        debug_flush("log_prior: {lp}", lp=log_prior)
        return log_prior + self.log_likelihood(x, data)


poisson_likelihood = PoissonLikelihood()


if __name__ == "__main__":
    pl = poisson_likelihood
    pl.vt_method = "uniform"
    pl.vt_params_index = [0, 1]
    pl.vt_params_unif_rvs = JointDistribution(Uniform(-3.0, 3.0), Uniform(-3.0, 3.0))
    pl.logVT = lambda s: jnp.zeros(s.shape[:-1])
    pl.model = ScaledMixture
    pl.variables_index = {"log_rate": 0, "loc": 1}
    pl.ref_priors = JointDistribution(Uniform(-5.0, 5.0), Uniform(-5.0, 5.0))
    pl.priors = JointDistribution(Uniform(-5.0, 5.0), Uniform(-5.0, 5.0))
    data = {"data": [jrd.normal(jrd.PRNGKey(1), (50, 2)), jrd.normal(jrd.PRNGKey(2), (50, 2))]}
    x = jnp.array([0.5, 0.2])

    eager = [float(pl.log_posterior(x, data)) for _ in range(3)]
    jitted_fn = jax.jit(pl.log_posterior)
    jitted = [float(jitted_fn(x, data)) for _ in range(3)]
    # observed: line 68 draws the key's seed on the host once, at trace time: the jitted estimate never changes
    assert len(set(eager)) == 3, eager
    assert len(set(jitted)) == 1, jitted
    print("eager", eager, "jitted", jitted)
