# source: https://jax.readthedocs.io/en/latest/errors.html (ConcretizationTypeError, "Shape
#   depends on Traced Value", the second example, "code with a similar issue")
# observed on jax 0.10.2 CPU: ConcretizationTypeError at `jnp.where(x > 1)` ("The error
#   arose in jnp.nonzero"): the index arrays have a value-dependent length under jit.
#   Added: the imports the page's earlier examples use.
# gap: other
from jax import jit
import jax.numpy as jnp

@jit
def func(x):
  indices = jnp.where(x > 1)  # expect: JIT403
  return x[indices].sum()

func(jnp.arange(4))
