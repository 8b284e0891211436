# source: https://github.com/google-deepmind/rlax/blob/994aac494bd7a307f10a840d8eb469fcc94a98b4/rlax/_src/base.py
#   (lhs_broadcast before "Changes the shape checking logic to use numpy", f8c105c)
# observed on jax 0.10.2 CPU: under jax.jit, jnp.array(source.shape) is a traced array
#   (every jax.numpy call is staged), so `if jnp.all(same_shape + ones):` raises
#   TracerBoolConversionError, though the shapes are static. Added: the imports and the
#   __main__ block.
# gap: omnistaging
import jax
import jax.numpy as jnp


def lhs_broadcast(source, target):
  """Ensures that source is compatible with target for broadcasting."""
  same_shape = jnp.array(source.shape) == jnp.array(target.shape[:source.ndim])
  ones = jnp.array(source.shape) == jnp.ones((source.ndim,))
  if jnp.all(same_shape + ones):  # expect: JIT101
    broadcast_shape = source.shape + (1,) * (target.ndim - source.ndim)
    return jnp.reshape(source, broadcast_shape)
  raise ValueError(
      "source shape {} is not compatible with target shape {}".format(
          source.shape, target.shape))


if __name__ == "__main__":
  source = jnp.ones((3,))
  target = jnp.ones((3, 4))
  jax.jit(lhs_broadcast)(source, target)
