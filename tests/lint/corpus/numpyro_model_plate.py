import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist


def hierarchical(group, y=None, n_groups=3):
    mu = numpyro.sample("mu", dist.Normal(0, 1))
    sigma = numpyro.sample("sigma", dist.HalfNormal(1))
    with numpyro.plate("groups", n_groups):
        theta = numpyro.sample("theta", dist.Normal(mu, sigma))
    if y is not None and y.ndim != 1:
        raise ValueError("y must be 1-d")
    numpyro.sample("obs", dist.Normal(theta[group], 1.0), obs=y)
