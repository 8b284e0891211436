# source: https://github.com/RohitNagraj/Learning-JAX (a user's JIT notebook, cell 5)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at `if x < 3`.
# gap: other
from jax import jit, grad, vmap
import jax.numpy as jnp

@jit
def f(x):
    if x < 3:  # expect: JIT101
        return 0
    else:
        return 1
f(2)
