# source: https://github.com/jax-ml/jax/issues/5280
# observed on jax 0.10.2 CPU: ConcretizationTypeError: the size argument of jnp.nonzero
#   must be statically specified: under jit even a constant np.array (np is jax.numpy)
#   becomes a tracer.
# gap: omnistaging
import jax.numpy as np
from jax import jit


@jit
def example():
    a = np.array([0, 1, 2])
    return np.nonzero(a)  # expect: JIT403


example()
