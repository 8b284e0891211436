"""A numpyro model and MCMC driver: Python control flow on data shapes only."""

import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS


def regression(x, y=None):
    n, d = x.shape
    w = numpyro.sample("w", dist.Normal(jnp.zeros(d), 1.0).to_event(1))
    sigma = numpyro.sample("sigma", dist.HalfNormal(1.0))
    if y is not None:
        assert y.shape[0] == n
    with numpyro.plate("data", n):
        numpyro.sample("obs", dist.Normal(x @ w, sigma), obs=y)


def run(key, x, y, num_samples=1000):
    kernel = NUTS(regression)
    mcmc = MCMC(kernel, num_warmup=500, num_samples=num_samples)
    mcmc.run(key, x, y)
    samples = mcmc.get_samples()
    if samples["sigma"].mean() > 1.0:
        print("noisy data")
    return samples
