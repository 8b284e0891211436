# source: https://github.com/RohitNagraj/Learning-JAX (a user's JIT notebook, cells 5-6)
# observed on jax 0.10.2 CPU: TracerBoolConversionError from `and` between traced
#   comparisons (the `if x < 3` cell above it fails the same way and is left out).
# gap: other
from jax import jit, grad, vmap
import jax.numpy as jnp

@jit
def g(x):
  return (x > 0) and (x < 3)  # expect: JIT103

# This will fail!
g(2)
