import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist


def regression(x, y=None):
    w = numpyro.sample("w", dist.Normal(0.0, 1.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(1.0))
    if w > 0:  # expect: JIT101
        mean = w * x
    else:
        mean = -w * x
    numpyro.sample("y", dist.Normal(mean, sigma), obs=y)


def regression_fixed(x, y=None):
    w = numpyro.sample("w", dist.Normal(0.0, 1.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(1.0))
    if y is not None and x.ndim == 1:  # static tests: fine
        mean = jnp.abs(w) * x
    else:
        mean = w * x
    numpyro.sample("y", dist.Normal(mean, sigma), obs=y)
