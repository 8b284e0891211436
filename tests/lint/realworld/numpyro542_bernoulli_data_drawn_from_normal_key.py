# source: https://github.com/pyro-ppl/numpyro/issues/542 (the reporter's minimal example:
#   its data and model cells)
# observed on jax 0.10.2 CPU (numpyro 0.22.0): `y` is drawn from the key `x` was drawn
#   from, so its Bernoulli draws reuse the uniform bits behind x's normal draws: the first
#   row of y equals `ndtr(x) < expit(theta)` exactly, a function of x alone instead of
#   independent noise. Current spelling: `from numpyro.infer.mcmc import MCMC, NUTS` is
#   `from numpyro.infer import MCMC, NUTS`. Left out: the sampling cell (NUTS on m1 and m2,
#   the thread's subject; its last lines are cut off in the thread). Added: the __main__
#   block, which runs m1 under NUTS on the data.
# gap: other
import jax.numpy as np
from jax import random, vmap
import numpyro
from numpyro.distributions import Normal, Bernoulli
from numpyro.infer import MCMC, NUTS

rng_key = random.PRNGKey(seed=1)

# data
n     = 100
a     = 0.5
b     = 1.0
x     = Normal(0,1).sample(rng_key, sample_shape=(n,))
theta = a + b * x
y     = Bernoulli(logits=theta).sample(rng_key, sample_shape=(n,))  # expect: JIT502

# models
def m1(x, y=None):
    a = numpyro.sample('a', Normal(0, 5))
    b = numpyro.sample('b', Normal(0, 5))
    with numpyro.plate('obs', n):
        theta = a + b * x
        numpyro.sample('y_obs', Normal(theta, 0.1), obs=y)

def m2(x, y=None):
    a = numpyro.sample('a', Normal(0, 5))
    b = numpyro.sample('b', Normal(0, 5))
    with numpyro.plate('obs', n):
        theta = a + b * x
        numpyro.sample('y_obs', Bernoulli(logits=theta), obs=y)


if __name__ == "__main__":
    import jax.scipy.special as jss

    # observed: line 25 draws y from x's key: its first row is a function of x alone
    assert bool(((jss.ndtr(x) < jss.expit(theta)).astype(y.dtype) == y[0]).all())
    mcmc = MCMC(NUTS(m1), num_warmup=10, num_samples=10, progress_bar=False)
    mcmc.run(random.PRNGKey(2), x, y)
    assert mcmc.get_samples()['a'].shape == (10,)
