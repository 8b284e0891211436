# source: https://github.com/jax-ml/jax/issues/3133
# observed on jax 0.10.2 CPU: jax.jit(g)(a) raises TracerArrayConversionError: the NumPy
#   array np.zeros((3, 3)) is indexed with the traced i. The jnp version f runs under jit.
#   Added: the imports.
# gap: types
import jax
import jax.numpy as jnp
import numpy as np

f = lambda i: jnp.zeros((3, 3))[i, :]
g = lambda i: np.zeros((3, 3))[i, :]  # expect: JIT402

a = np.array([1, 2])

f(a)           # Okay
jax.jit(f)(a)  # Okay

g(a)           # Okay
jax.jit(g)(a)  # Fail
