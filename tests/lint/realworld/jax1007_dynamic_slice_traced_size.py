# source: https://github.com/jax-ml/jax/issues/1007 (the question that opened the issue;
#   `from jax import lax` added, the snippet uses `lax` without importing it)
# observed on jax 0.10.2 CPU: TypeError: Shapes must be 1D sequences of concrete values of
#   integer type, in lax.dynamic_slice: the slice size `(k,)` is a traced argument.
# gap: other
import jax
import jax.numpy as np
from jax import lax

@jax.jit
def sum_first_k(a, k):
  return np.sum(lax.dynamic_slice(a, (0,), (k,)))  # expect: JIT404

sum_first_k(np.arange(3.0), 2)
