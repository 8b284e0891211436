# source: https://github.com/jax-ml/jax/issues/15727 (the fix suggested in the thread by
#   JiaYaobo: jit under @classmethod with `cls` and `shape` static)
# observed on jax 0.10.2 CPU: runs clean and prints a 2x3 array of zeros: `cls` (a class,
#   hashable) and `shape` (a tuple) are static, so jnp.zeros gets a concrete shape. The
#   assert in __main__ is added.
# gap: static-hashability
import jax
import jax.numpy as jnp
from functools import partial


class A:
    def __init__(self):
        pass

    @classmethod
    @partial(jax.jit, static_argnums=(0,1))
    def zeros(cls, shape):
        return jnp.zeros(shape)


print(A.zeros((2, 3)))

if __name__ == "__main__":
    assert A.zeros((2, 3)).shape == (2, 3)
