# source: https://github.com/pyro-ppl/numpyro/issues/1439 (the reporter's model; its
#   KeyError came from a NumPy release and is long fixed)
# observed on jax 0.10.2 CPU with numpyro 0.22: runs clean; NUTS traces the model under
#   jit. Fewer warmup steps and samples than the report, to keep the run short.
# gap: other
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS
from jax.random import PRNGKey
import jax.numpy as jnp

# Data
a = [63, 66]
b = [24, 35]

def beta_binomial(a, b):
    def model():
        with numpyro.plate("groups", 2):
            probs = numpyro.sample("theta", dist.Beta(1, 1))
        with numpyro.plate("data", 2):
            numpyro.sample("obs", dist.Binomial(a, probs), obs=b)
    return model

model = beta_binomial(jnp.array(a), jnp.array(b))
kernel = NUTS(model)
mcmc = MCMC(
    sampler=kernel,
    num_warmup=20,
    num_samples=20,
    num_chains=1,
    chain_method="sequential",
    progress_bar=False,
)
mcmc.run(rng_key=PRNGKey(10))
mcmc.print_summary()
