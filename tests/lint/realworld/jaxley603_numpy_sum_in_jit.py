# source: https://github.com/jaxleyverse/jaxley/pull/603
# observed on jax 0.10.2 CPU: TracerArrayConversionError: np.sum (NumPy) is called on a
#   traced array; the fixed version (jnp.sum, jnp.sqrt around a NumPy constant) runs.
# gap: types
import jax.numpy as jnp
import numpy as np
from jax import jit


@jit
def mytest_fixed(param):
    return jnp.sqrt(jnp.sum(param * np.asarray([3.0, 4.0])))
mytest_fixed(jnp.ones((1,)))


@jit
def mytest(param):
    return np.sqrt(np.sum(param * np.asarray([3.0, 4.0])))  # expect: JIT402
mytest(jnp.ones((1,)))
