# source: https://github.com/jax-ml/jax/issues/4449
# observed on jax 0.10.2 CPU: TypeError: Shapes must be 1D sequences of concrete values
#   of integer type: under jit jnp.add(arr.size, 1) is a tracer even though arr.size is
#   static. The report notes `arr.size + 1` works (custom_ones_plain below).
# gap: omnistaging
import jax
import jax.numpy as jnp


@jax.jit
def custom_ones_plain(arr):
  count = arr.size + 1
  return jnp.ones((count,))


@jax.jit
def custom_ones(arr):
  count = jnp.add(arr.size, 1)
  return jnp.ones((count,))  # expect: JIT404


a = jnp.ones((3,))
print(custom_ones_plain(a))
print(custom_ones(a))
