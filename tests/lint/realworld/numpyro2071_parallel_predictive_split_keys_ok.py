# source: https://github.com/pyro-ppl/numpyro/issues/2071 (the reporter's reproduction; the
#   WaffleDivorce.csv download read with pandas is replaced by 50 synthetic rows in a
#   dict of columns with `.values`; the end of the `posterior_predictive(...)` call, cut
#   off in the thread, is completed as in numpyro's own test (divorce=None, then the samples
#   returned); the two calls in __main__ are added)
# observed on jax 0.10.2 CPU with numpyro 0.22.0: runs clean. The failure reported (Predictive
#   with parallel=True and a new-style key) was numpyro's, fixed by pull request #2073. The
#   keys are handled correctly: `seed` is split before each use, the MCMC and the predictive
#   draws get different subkeys; NUTS and Predictive trace the model under jit/vmap.
# gap: other
import numpy as np
import jax
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS, Predictive


class _Column:  # stand-in for a pandas column
    def __init__(self, values):
        self.values = values


_rng = np.random.default_rng(0)
_marriage = _rng.uniform(13.0, 30.0, size=50)
dset = {
    "Marriage": _Column(_marriage),
    "Divorce": _Column(5.0 + 0.2 * _marriage + _rng.normal(0.0, 1.0, size=50)),
}

def model(marriage, divorce=None):
    a = numpyro.sample("a", dist.Normal(0.0, 0.2))
    bM = numpyro.sample("bM", dist.Normal(0.0, 0.5))
    sigma = numpyro.sample("sigma", dist.Exponential(1.0))
    mu = a + bM * marriage
    numpyro.sample("obs", dist.Normal(mu, sigma), obs=divorce)

def posterior_predictive(seed, model, parallel):
    mcmc = MCMC(NUTS(model), num_samples=100, num_warmup=100)
    seed, key = jax.random.split(seed)
    mcmc.run(key, marriage=dset["Marriage"].values, divorce=dset["Divorce"].values)
    posterior_samples = mcmc.get_samples()
    posterior_predictive = Predictive(model, posterior_samples, parallel=parallel)
    seed, key = jax.random.split(seed)
    posterior_predictive_samples = posterior_predictive(
        key,
        marriage=dset["Marriage"].values,
        divorce=None,
    )
    return posterior_predictive_samples


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore")
    sequential = posterior_predictive(jax.random.key(0), model, parallel=False)
    parallel = posterior_predictive(jax.random.key(1), model, parallel=True)
    assert sequential["obs"].shape == parallel["obs"].shape == (100, 50)
    assert np.isfinite(np.asarray(parallel["obs"])).all()
