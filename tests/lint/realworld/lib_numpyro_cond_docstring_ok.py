# source: https://github.com/pyro-ppl/numpyro/blob/0.22.0/numpyro/contrib/control_flow/cond.py
#   (the usage example in the docstring of cond, numpyro 0.22.0 as released; the doctest is
#   written as a script and runs 200 SVI steps instead of 2500)
# observed on jax 0.10.2 CPU with numpyro 0.22: runs clean: SVI traces model and guide under
#   jit, and the branch on the traced `cluster > 0` goes through numpyro's cond (lax.cond).
# gap: other
import numpyro
import numpyro.distributions as dist
from jax import random
from numpyro.contrib.control_flow import cond
from numpyro.infer import SVI, Trace_ELBO

def model():
    def true_fun(_):
        return numpyro.sample("x", dist.Normal(20.0))

    def false_fun(_):
        return numpyro.sample("x", dist.Normal(0.0))

    cluster = numpyro.sample("cluster", dist.Normal())
    return cond(cluster > 0, true_fun, false_fun, None)

def guide():
    m1 = numpyro.param("m1", 10.0)
    s1 = numpyro.param("s1", 0.1, constraint=dist.constraints.positive)
    m2 = numpyro.param("m2", 10.0)
    s2 = numpyro.param("s2", 0.1, constraint=dist.constraints.positive)

    def true_fun(_):
        return numpyro.sample("x", dist.Normal(m1, s1))

    def false_fun(_):
        return numpyro.sample("x", dist.Normal(m2, s2))

    cluster = numpyro.sample("cluster", dist.Normal())
    return cond(cluster > 0, true_fun, false_fun, None)

if __name__ == "__main__":
    svi = SVI(model, guide, numpyro.optim.Adam(1e-2), Trace_ELBO(num_particles=100))
    svi_result = svi.run(random.key(0), num_steps=200, progress_bar=False)
    assert set(svi_result.params) == {"m1", "s1", "m2", "s2"}
