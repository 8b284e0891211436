# source: https://github.com/pyro-ppl/numpyro/issues/1260 (the reporter's snippet)
# observed on jax 0.10.2 CPU with numpyro 0.22.0: both runs complete (the failure of the
#   report is gone; with one CPU device the two chains run sequentially, with a warning).
#   But `mcmc.run` already consumed `rng_key`: with `num_chains=2` it hands its chains
#   `random.split(rng_key, 2)`, and `jax.random.split(rng_key, num=1)` gives back exactly the
#   first of those keys, so the second run starts from the key of the first run's first
#   chain. The snippet is kept (the missing `)` of its first `mcmc.run` line restored); the
#   model, `nuts_kernel` and `rng_key`, which the report's gist defines, are stand-ins; the
#   copy `first_key` and the __main__ check are added.
# gap: other
import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS


def model(y=None):  # stand-in for the gist's model
    mu = numpyro.sample("mu", dist.Normal(0.0, 1.0))
    numpyro.sample("y", dist.Normal(mu, 1.0), obs=y)


nuts_kernel = NUTS(model)
rng_key = jax.random.PRNGKey(0)
first_key = rng_key

mcmc = MCMC(nuts_kernel, num_warmup=100, num_samples=100,num_chains=2,progress_bar=False)
mcmc.run(rng_key,y=jnp.array([1.2]))        #1st
rng_key,=jax.random.split(rng_key,num=1)  # expect: JIT502
mcmc.run(rng_key,y=jnp.array([1.2]) )   #<===="same" input value to 1st one : This will fail.


if __name__ == "__main__":
    chain_keys = jax.random.split(first_key, 2)  # the keys the first run gave its chains  # tolerate: JIT502
    # observed: line 29 hands the second run the key of the first run's first chain
    assert (rng_key == chain_keys[0]).all(), (rng_key, chain_keys)
    assert mcmc.get_samples()["mu"].shape == (200,)
