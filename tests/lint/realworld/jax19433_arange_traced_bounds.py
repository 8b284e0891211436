# source: https://github.com/jax-ml/jax/issues/19433
# observed on jax 0.10.2 CPU: raises ConcretizationTypeError in jnp.arange: its bounds come
#   from the traced x[0], so the length (always 2 here) is not known while tracing.
# gap: omnistaging
import jax.numpy as np 
from jax import jit 

@jit 
def f(x: np.ndarray) -> np.ndarray: 
     return np.arange(x[0] - 1, x[0] + 1)  # expect: JIT404

f(np.zeros(1).astype(int)) 
