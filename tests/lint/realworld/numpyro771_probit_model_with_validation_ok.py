# source: https://github.com/pyro-ppl/numpyro/issues/771
# observed on jax 0.10.2 CPU: with numpyro 0.22 runs clean: with validation enabled, the
#   reporter's probit model samples under NUTS (which traces it under jit); the support check
#   in `validate_sample` that raised ConcretizationTypeError on numpyro 0.4 no longer turns a
#   tracer into a bool. The imports (`cdf` is jax.scipy.stats.norm.cdf), the call to
#   `numpyro.enable_validation()`, a seeded stand-in for the Mroz labour data the report does
#   not include, and the MCMC driver in the __main__ block are added.
# gap: other
import numpy as np
from jax import random
from jax.scipy.stats.norm import cdf
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS

numpyro.enable_validation()


def model(nwifeinc,
                  educ,
                  exper,
                  exper2,
                  age,
                  kidslt6,
                  kidsge6,
                  y=None):
    
    alpha = numpyro.sample("alpha", dist.Normal(0, 1))
    b1 = numpyro.sample("b1", dist.Normal(0, 1))
    b2 = numpyro.sample("b2", dist.Normal(0, 1))
    b3 = numpyro.sample("b3", dist.Normal(0, 1))
    b4 = numpyro.sample("b4", dist.Normal(0, 1))
    b5 = numpyro.sample("b5", dist.Normal(0, 1))
    b6 = numpyro.sample("b6", dist.Normal(0, 1))
    b7 = numpyro.sample("b7", dist.Normal(0, 1))
    xb =  alpha + b1*nwifeinc  + b2*educ +b3*exper + b4*exper2 + b5*age  + b6*kidslt6 + b7*kidsge6
    phi =  cdf(xb)  
    numpyro.sample("y", dist.BernoulliProbs(phi), obs=y)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    n = 100
    nwifeinc, educ, exper, age = (rng.normal(size=n) for _ in range(4))
    exper2 = exper ** 2
    kidslt6 = rng.integers(0, 3, size=n).astype(float)
    kidsge6 = rng.integers(0, 4, size=n).astype(float)
    y = rng.binomial(1, 0.5, size=n)
    mcmc = MCMC(NUTS(model), num_warmup=50, num_samples=50, progress_bar=False)
    mcmc.run(random.PRNGKey(0), nwifeinc, educ, exper, exper2, age, kidslt6, kidsge6, y=y)
    assert mcmc.get_samples()["alpha"].shape == (50,)
