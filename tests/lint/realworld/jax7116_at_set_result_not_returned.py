# source: https://github.com/jax-ml/jax/issues/7116
# observed on jax 0.10.2 CPU: inplace_func_jax returns None and x_jax keeps its values
#   ("jax sum after" is still 4950): each `a.at[i].set(...)` makes a new array that is
#   rebound to the local `a` and dropped when the function returns nothing. The numba half
#   of the benchmark (numba is not installed) and the timing lines are left out.
# gap: other
# pip install numpy==1.19.5 numba==0.53.1 jax==0.2.16 jaxlib==0.1.68

import numpy as np
import jax
import jax.numpy as jnp
import time


@jax.jit
def inplace_func_jax(a):
    for i in range(a.size):
        a = a.at[i].set(2 * (2 * (a[i] + 1) + 1))  # expect: JIT503


x = np.arange(100, dtype=np.int32)
x_jax = jnp.array(x.copy())


# warm up numba and jax
# np.asarray is used to make sure computation is executed

np.asarray(inplace_func_jax(x))

print("jax sum before:", x_jax.sum())
np.asarray(inplace_func_jax(x_jax))
print("jax sum after:", x_jax.sum())

if __name__ == "__main__":
    # observed: line 18 computes a new array that is never returned
    assert inplace_func_jax(x_jax) is None
    assert int(x_jax.sum()) == 4950
