# source: https://github.com/jax-ml/jax/issues/29
# observed on jax 0.10.2 CPU: runs clean. Both jitted versions failed on the JAX of the
#   report (np.trace was not implemented; indexing with a tuple of index arrays was not
#   supported) and both work now; the reporter's workaround, the last definition, works
#   too, under jit. The indices come from NumPy on `len(A)` and `A.shape`, which are Python
#   values while tracing. The report's `from jax import numpy` / `from jax.api import jit`
#   are spelled `import jax.numpy as np` / `from jax import jit` (its code uses `np`).
# gap: flow-sensitive
import jax.numpy as np
from jax import jit
import numpy as onp

@jit
def trace(A):
  return np.trace(A)  # Exception: Numpy function <function trace at 0x7f89bee1eb90> not yet implemented

@jit
def trace(A):
  idx = onp.diag_indices(len(A))
  diag = A[idx]  # TypeError: No abstraction handler for type: <type 'tuple'>
  return np.sum(diag)

def trace(A):
  idx = onp.diag_indices(len(A))
  flat_idx = onp.ravel_multi_index(idx, A.shape)
  diag = A.ravel()[flat_idx]
  return np.sum(diag)


if __name__ == "__main__":
    A = np.arange(9.0).reshape(3, 3)
    assert float(jit(trace)(A)) == 12.0
