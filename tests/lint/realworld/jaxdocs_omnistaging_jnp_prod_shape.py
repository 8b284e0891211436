# source: https://github.com/jax-ml/jax/blob/d69d27a82c1e5a7f3cd4905e02eec8e0ae01c568/docs/design_notes/omnistaging.md
#   ("Using jax.numpy for shape computations")
# observed on jax 0.10.2 CPU: ex1(jnp.ones((3, 4))) raises TypeError (Shapes must be 1D
#   sequences of concrete values of integer type, got (JitTracer(int32[]),)) at
#   `return x.reshape((size,))`: under jit, `jnp.prod(jnp.array(x.shape))` is staged out and
#   gives a tracer, not a trace-time constant. The design note's fix is `np.prod`.
# gap: omnistaging
from jax import jit
import jax.numpy as jnp

@jit
def ex1(x):
  size = jnp.prod(jnp.array(x.shape))
  return x.reshape((size,))  # expect: JIT404

ex1(jnp.ones((3, 4)))
