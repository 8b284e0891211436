# source: https://github.com/jax-ml/jax/issues/3620 (the maintainer's suggested version of
#   the report's pad_last_dim, as quoted in the thread)
# observed on jax 0.10.2 CPU: runs clean and both calls give shape (50, 101): the pad widths
#   are built with NumPy from jnp.ndim (a Python int) and the static pad_size, then passed
#   to jnp.pad as nested lists. The shape asserts in __main__ are added.
# gap: exemption-vs-JAX
from jax import jit as jjit
import jax.numpy as jnp
from jax import ops
import numpy as np

vals = np.random.randn(50, 100)

def pad_last_dim(array, pad_size):
    ndim = jnp.ndim(array)
    npad = np.zeros((ndim, 2), dtype=np.int32)
    axis = ndim - 1
    npad[axis, 1] = pad_size
    npad = list(map(list, npad))
    return jnp.pad(array, npad, 'constant', constant_values=0)

print(pad_last_dim(vals, 1))  # All good
print(jjit(pad_last_dim, static_argnums=(1,))(vals, 1))

if __name__ == "__main__":
    assert jjit(pad_last_dim, static_argnums=(1,))(vals, 1).shape == (50, 101)
