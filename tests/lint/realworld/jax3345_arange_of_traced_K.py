# source: https://github.com/jax-ml/jax/issues/3345
# observed on jax 0.10.2 CPU: jit(dynamic_array)(K) raises ConcretizationTypeError at
#   jnp.arange(K): jit traces K, and arange needs a concrete length. Added: nothing (the
#   issue's snippet is complete).
# gap: other
import jax.numpy as jnp
from jax import random
from jax import jit

rng = random.PRNGKey(0)
K = random.randint(rng, (1,), 1, 100) 

def dynamic_array(K):
   return jnp.arange(K)  # expect: JIT404

# Raises an error
jit(dynamic_array)(K)
