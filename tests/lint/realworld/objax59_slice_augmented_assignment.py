# source: https://github.com/google/objax/issues/59 (the example in the description)
# observed on jax 0.10.2 CPU: `v[2:4] += 1` on the jax.numpy array raises TypeError: JAX
#   arrays are immutable and do not support in-place item assignment; the NumPy version
#   below it prints [0 1 3 4 4 5 6 7 8 9] but is never reached. Added: nothing.
# gap: types
import jax.numpy as jn

v = jn.arange(10)
v[2:4] += 1  # expect: JIT501
# TypeError: '<class 'jax.interpreters.xla.DeviceArray'>' object does not support item assignment. JAX arrays are immutable; perhaps you want jax.ops.index_update or jax.ops.index_add instead?

import numpy as np

v = np.arange(10)
v[2:4] += 1
print(v)
# [0 1 3 4 4 5 6 7 8 9]
