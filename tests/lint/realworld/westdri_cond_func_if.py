# source: https://mint.westdri.ca/ai/jx_jit (a course page on JIT subtleties; the
#   page's code lost its indentation, restored here)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at `if x < 0.0`.
# gap: other
import jax.numpy as jnp
from jax import jit


@jit
def cond_func(x):
    if x < 0.0:  # expect: JIT101
        return x ** 2.0
    else:
        return x ** 3.0
print(cond_func(1.0))
