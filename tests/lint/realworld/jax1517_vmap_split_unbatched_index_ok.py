# source: https://github.com/jax-ml/jax/issues/1517 (the report's snippet; `from jax import np`
#   is spelled `from jax import numpy as np`, and the outputs it printed are left out)
# observed on jax 0.10.2 CPU: runs clean: vmap passes the unbatched split_idx (in_axes None)
#   through as the Python int 3, so np.split gets concrete indices inside the vmapped call.
# gap: exemption-vs-JAX
from jax import numpy as np, vmap

def mysplit(split_idx, z):
  a, b = np.split(z, (split_idx,), axis=0)
  return a, b

batch_mysplit = vmap(mysplit, in_axes=(None, 0))

z = np.zeros([10])
b, c = mysplit(4, z)
print(b, c)

zs = np.zeros([4, 10])
bs, cs = batch_mysplit(3, zs)
print(bs, cs)
