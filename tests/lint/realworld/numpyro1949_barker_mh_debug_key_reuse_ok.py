# source: https://github.com/pyro-ppl/numpyro/issues/1949
# observed on jax 0.10.2 CPU (numpyro 0.22.0): runs clean with jax_debug_key_reuse on: the
#   user's code hands MCMC one typed key and never reuses it, and the KeyReuseError the
#   report saw inside numpyro's MCMC machinery no longer occurs; the chain's mean is near 2.
#   Added: the __main__ block.
# gap: other
import jax

# activate experimental check for key reuse
jax.config.update('jax_debug_key_reuse', True)  

from jax import random
from jax import numpy as jnp
from numpyro.infer import MCMC,BarkerMH

def gaussian_potential(x):
    return ((x - 2) ** 2).sum()

kernel = BarkerMH(potential_fn=gaussian_potential)
mcmc = MCMC(kernel, num_warmup=1000, num_samples=1000, progress_bar=False)
mcmc.run(random.key(0), init_params=jnp.array([1., 2.]))

if __name__ == "__main__":
    samples = mcmc.get_samples()
    assert samples.shape == (1000, 2)
    assert jnp.allclose(samples.mean(0), 2.0, atol=0.3), samples.mean(0)
