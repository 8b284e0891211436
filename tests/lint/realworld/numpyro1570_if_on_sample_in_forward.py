# source: https://github.com/pyro-ppl/numpyro/issues/1570
# observed on jax 0.10.2 CPU with numpyro 0.22: TracerBoolConversionError at `if a<5:` in
#   forward: NUTS traces the model under jit, so the sampled `a` is a tracer. The report's
#   forward function and constants are kept; the noise is drawn from a seeded generator,
#   and the report's later lines (the data, the model and the MCMC call) are replaced by
#   the smallest stand-ins: y_values, and a model that samples a and b and calls forward.
# gap: other
""" LIB IMPORT """
import numpy as np 
from jax import random
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS
import jax.numpy as jnp


""" FORWARD FUNCTION """
def forward(x, a, b) :
    y = b + a * x 
    
    if a<5: # checking value   # expect: JIT101
        print('hello')
    else:
        print('goodbye')
        
    return y

""" VARIABLE INITIALIZATION """
x_values = np.arange(0, 1e2, dtype=float)
coefficient_directeur=10
ordonnee_origine=150

""" GENERATING NOISE """
alpha = 200 # coefficient de bruit
noise = jnp.array(np.random.default_rng(0).standard_normal(len(x_values))) * alpha

# stand-ins for the report's data, model and MCMC call
y_values = forward(x_values, coefficient_directeur, ordonnee_origine) + noise

def model(x, y=None):
    a = numpyro.sample("a", dist.Uniform(0, 20))
    b = numpyro.sample("b", dist.Uniform(0, 300))
    numpyro.sample("obs", dist.Normal(forward(x, a, b), alpha), obs=y)


mcmc = MCMC(NUTS(model), num_warmup=10, num_samples=10, progress_bar=False)
mcmc.run(random.PRNGKey(0), x_values, y_values)
