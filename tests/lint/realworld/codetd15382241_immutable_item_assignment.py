# source: https://www.codetd.com/ja/article/15382241 (the JAX example: immutable arrays)
# observed on jax 0.10.2 CPU: TypeError "JAX arrays are immutable and do not support
#   in-place item assignment" at `x[0] = 10`. Added: the import of jax.numpy as jnp.
# gap: types
import jax.numpy as jnp

# JAX: immutable arrays
x = jnp.arange(10)
x[0] = 10  # expect: JIT501

y = x.at[0].set(10)
print(x)
print(y)
