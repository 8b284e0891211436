# source: https://jax.readthedocs.io/en/latest/errors.html (ConcretizationTypeError, "Traced
#   value used in control flow", the failing example; an older rendering of the page)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at the conditional expression:
#   under jit `x.sum() < y.sum()` is a tracer. The page's fix is jnp.where.
# gap: other
from jax import jit
import jax.numpy as jnp

@jit
def func(x, y):
  return x if x.sum() < y.sum() else y  # expect: JIT101

func(jnp.ones(4), jnp.zeros(4))
