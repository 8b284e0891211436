# source: https://github.com/pyro-ppl/numpyro/issues/853
# observed on jax 0.10.2 CPU with numpyro 0.22: ConcretizationTypeError in jnp.unique
#   (data-dependent size) while NUTS traces the model under jit. The reedfrogs CSV of the
#   report cannot be downloaded here; the same columns are built from a seeded generator.
# gap: other
import numpy as np
from jax import random
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import NUTS, MCMC

rng = np.random.default_rng(0)
density = np.repeat([10, 25, 35], 16)
volume = np.tile([0, 1], 24)
survived = rng.binomial(density, 0.7)
tank = np.arange(48)

def model(tank, density, volume, survived=None):
    # priors
    a_bar = numpyro.sample('a_bar', dist.Normal(0, 1.5))
    sigma = numpyro.sample('sigma', dist.Exponential(1))
    a = numpyro.sample('a', dist.Normal(a_bar,sigma), sample_shape=tank.shape)
    s = numpyro.sample('s', dist.Normal(0,0.5), sample_shape=(jnp.unique(volume).size,))  # expect: JIT403
    # likelihood
    logits = a[tank] + s[volume]
    numpyro.sample('surv_hat', dist.Binomial(density, logits=logits), obs=survived)

kernel = NUTS(model)
mcmc = MCMC(kernel, num_warmup=500, num_samples=500)
mcmc.run(random.PRNGKey(0), tank, density, volume, survived)
