# source: https://jax.readthedocs.io/en/latest/errors.html (ConcretizationTypeError, "Shape
#   depends on Traced Value", the rewrite "that avoids creation of a dynamically-sized
#   index array")
# observed on jax 0.10.2 CPU: runs clean under jit and returns 5, as the page shows.
#   Added: the imports the page's earlier examples use.
# gap: other
from jax import jit
import jax.numpy as jnp

@jit
def func(x):
  return jnp.where(x > 1, x, 0).sum()

func(jnp.arange(4))

if __name__ == "__main__":
    assert int(func(jnp.arange(4))) == 5
