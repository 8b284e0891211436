# source: https://github.com/jax-ml/jax/issues/968 (ssydasheng's comment of 2019-07-15)
# observed on jax 0.10.2 CPU: the first call of the jitted compare raises
#   TracerBoolConversionError on its `and` chain: `and` calls bool() on each traced
#   comparison. The comment shows the loop with the comparison inline, then the jitted
#   compare, and its traceback points at `if compare(z, i, j):` in that loop; the loop is
#   written so, with the timing lines left out. `from jax import jit` is added.
# gap: other
import numpy as original_numpy
import jax.numpy as np
import jax.random as random
from jax import jit

z = random.normal(random.PRNGKey(123123), shape=[100, 100])
# z = original_numpy.asarray(z) # Adding this reduces running time from 28.2714s to 0.0153s


@jit
def compare(z, i, j):
    return z[j, i] <= z[j - 1, i] and z[j, i] <= z[j + 1, i] and z[j, i] <= z[j, i - 1] and z[j, i] <= z[j, i + 1]  # expect: JIT103


points = []
for i in range(100):
    if i in [0, 99]: continue
    for j in range(100):
        if j in [0, 99]: continue
        if compare(z, i, j):
            points.append([i, j])
