# source: https://github.com/pyro-ppl/numpyro/pull/821 (the reviewer's example in the review
#   thread on numpyro/contrib/tfp/distributions.py)
# observed on jax 0.10.2 CPU: jax.jit(f)(1) raises TracerBoolConversionError at
#   `if np.all(y <= 0)`: the global y is a concrete array, so the not_jax_tracer guard
#   passes, but under jit `y <= 0` is staged out and is a tracer (omnistaging).
# gap: omnistaging
import jax
from numpyro.util import not_jax_tracer
import numpy as np
import jax.numpy as jnp

def f(x):
    if not_jax_tracer(y):
        if np.all(y <= 0):  # expect: JIT101
            print("nooo")
    return x + y

y = jnp.arange(10.)
jax.jit(f)(1)
