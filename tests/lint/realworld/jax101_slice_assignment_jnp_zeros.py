# source: https://github.com/jax-ml/jax/issues/101
# observed on jax 0.10.2 CPU: the slice assignment raises TypeError (JAX arrays are
#   immutable) on the jax.numpy array; in the report it raised "assignment destination is
#   read-only". The report shows only the assignment line; the imports (`np` as jax.numpy,
#   as in the report), the loop over i, and small stand-ins for the CIFAR-like x_train and
#   the loaded batch `data` are added.
# gap: types
import jax.numpy as np
import numpy as onp

x_train = np.zeros((50000, 2, 2, 3))
for i in range(1, 6):
    data = onp.ones((10000, 2, 2, 3))
    x_train[(i - 1) * 10000 : i * 10000, :, :, :] = data  # expect: JIT501
