# source: https://github.com/pyro-ppl/numpyro/issues/1651
# observed on jax 0.10.2 CPU: runs clean under jax.checking_leaks with numpyro 0.22.0: the
#   TruncatedNormal built outside the model does not keep a tracer on itself any more
#   (numpyro stopped caching traced lazy properties, cf. pyro-ppl/numpyro#1843), so the ten
#   chains, run in parallel on ten host devices, leak nothing. The check after the run is added.
# gap: stale-state-attributes
import numpyro
from numpyro.distributions import TruncatedNormal
from numpyro.handlers import trace, seed
from numpyro.infer import NUTS, MCMC
from jax import random, checking_leaks

numpyro.set_platform("cpu")
numpyro.set_host_device_count(10)

prior = {"x": TruncatedNormal(low=0)}

def model():
    numpyro.sample("x", prior["x"])

nuts = NUTS(model)
mcmc = MCMC(nuts, num_warmup=100, num_samples=100, num_chains=10)

with checking_leaks():
    mcmc.run(random.PRNGKey(0))

if __name__ == "__main__":
    samples = mcmc.get_samples()["x"]
    assert samples.shape == (1000,) and float(samples.min()) >= 0.0
