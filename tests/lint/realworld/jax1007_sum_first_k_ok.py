# source: https://github.com/jax-ml/jax/issues/1007 (the maintainer's two alternatives to a
#   traced-size lax.dynamic_slice: a static k, and a mask; `from __future__` dropped)
# observed on jax 0.10.2 CPU: runs clean and prints 1.0 twice: the first function takes k
#   as a static argument, the second compares a static arange with the traced k.
# gap: exemption-vs-JAX
from functools import partial

import jax
import jax.numpy as np

@partial(jax.jit, static_argnums=(1,))
def sum_first_k(a, k):
  return np.sum(jax.lax.dynamic_slice(a, (0,), (k,)))

print(sum_first_k(np.arange(3.0), 2))


@jax.jit
def sum_first_k(a, k):
  n = len(a)
  return np.sum(np.where(np.arange(n) < k, a, 0))

print(sum_first_k(np.arange(3.0), 2))

if __name__ == "__main__":
    assert float(sum_first_k(np.arange(3.0), 2)) == 1.0
