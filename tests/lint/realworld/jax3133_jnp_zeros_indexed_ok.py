# source: https://github.com/jax-ml/jax/issues/3133 (the working half of the report: the
#   same lookup on a jax.numpy array)
# observed on jax 0.10.2 CPU: runs clean under jit: a jnp array indexed by a traced index
#   array is a gather. Added: the imports and the check in __main__.
# gap: types
import jax
import jax.numpy as jnp
import numpy as np

f = lambda i: jnp.zeros((3, 3))[i, :]

a = np.array([1, 2])

f(a)           # Okay
jax.jit(f)(a)  # Okay

if __name__ == "__main__":
    assert jax.jit(f)(a).shape == (2, 3)
