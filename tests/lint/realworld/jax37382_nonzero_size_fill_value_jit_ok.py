# source: https://github.com/jax-ml/jax/issues/37382 (the reproducer in the description)
# observed on jax 0.10.2 CPU: runs clean: jnp.nonzero with a static size= and fill_value=
#   has a fixed output shape, so jax.jit(f) traces the mask `delta > 0` without error and
#   every jitted result equals the eager one ([0]); the report's wrong [1] was a GPU-only
#   XLA miscompile at optimization level O1. Removed: the XLA_PYTHON_CLIENT_PREALLOCATE and
#   jax_default_device="gpu" settings (no GPU here); the loop runs 20 times, not 1000.
#   Added: the `__main__` block that checks the result.
# gap: exemption-vs-JAX
import jax

jax.config.update("jax_optimization_level", "O1")

import jax.numpy as jnp
import numpy as np

invalid = np.iinfo(np.int32).min


def f(arr):
    delta = arr[:, 1] - arr[:, 0]
    cond = delta > 0
    return jnp.nonzero(cond, size=1, fill_value=invalid)[0]


for it in range(20):
    print(it)
    arr = jnp.asarray([[1, 2], [0, 0]], dtype=jnp.int32)
    farr = f(arr)
    jfar = jax.jit(f)(arr)
    assert jnp.all(farr == jfar), f"expected {farr} got {jfar}"

if __name__ == "__main__":
    assert jax.jit(f)(jnp.asarray([[1, 2], [0, 0]], dtype=jnp.int32)).tolist() == [0]
    assert jax.jit(f)(jnp.asarray([[0, 0], [0, 0]], dtype=jnp.int32)).tolist() == [invalid]
