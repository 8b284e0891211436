# source: https://jax.readthedocs.io/en/latest/errors.html (ConcretizationTypeError, "Shape
#   depends on Traced Value", the first example)
# observed on jax 0.10.2 CPU: ConcretizationTypeError at `jnp.where(x < 0)` ("The error
#   arose in jnp.nonzero"): the one-argument where returns indices whose number depends on
#   the traced values. Added: the imports the page's earlier examples use.
# gap: other
from jax import jit
import jax.numpy as jnp

@jit
def func(x):
  return jnp.where(x < 0)  # expect: JIT403

func(jnp.arange(4))
