# source: https://github.com/jax-ml/jax/pull/6912 (the example in the description;
#   `from jax import partial` is now `functools.partial`)
# observed on jax 0.10.2 CPU: runs clean: with `size` bound by partial, jnp.unique has a
#   static output shape under jit, padded or truncated to `size`.
# gap: exemption-vs-JAX
from functools import partial

import jax.numpy as jnp
from jax import jit

x = jnp.array([3, 2, 1, 1, 2])

print(jnp.unique(x, return_index=True, return_inverse=True, return_counts=True))

# specify size of output to be JIT-compatible
f = jit(partial(jnp.unique, size=3, return_index=True, return_inverse=True, return_counts=True))
print(f(x))

# size too small: first `size` entries; inverse unchanged
f = jit(partial(jnp.unique, size=2, return_index=True, return_inverse=True, return_counts=True))
print(f(x))

if __name__ == "__main__":
    g = jit(partial(jnp.unique, size=3))
    assert g(x).tolist() == [1, 2, 3]
