# source: https://github.com/jax-ml/jax/issues/553
# observed on jax 0.10.2 CPU: runs clean. In 2019 `np.arange` (np is jax.numpy here) gave a
#   NumPy array and indexing it with a tracer failed; today it returns a JAX array, and the
#   accepted workaround `lax.iota` runs too. A namespace alias `np` for jax.numpy must not
#   be read as NumPy.
# gap: types
import jax.numpy as np
from jax import jit, lax


def fun(x):
    r = np.arange(x.shape[0])[x]
    return r


def fun_iota(x):
    r = lax.iota(np.int32, x.shape[0])[x]
    return r


print(jit(fun)(np.array([0, 1, 2], dtype=np.int32)))
print(jit(fun_iota)(np.array([0, 1, 2], dtype=np.int32)))
