# source: https://github.com/google-deepmind/rlax/blob/f8c105c189adce792f3bae6b307fc46e1000181d/rlax/_src/base.py
#   (lhs_broadcast after "Changes the shape checking logic to use numpy", f8c105c)
# observed on jax 0.10.2 CPU: the shape check runs on NumPy arrays built from the static
#   shapes, so jax.jit(lhs_broadcast) broadcasts (3,) to (3, 1). Added: the imports and
#   the __main__ block.
# gap: omnistaging
import jax
import jax.numpy as jnp
import numpy as np


def lhs_broadcast(source, target):
  """Ensures that source is compatible with target for broadcasting."""
  same_shape = np.array(source.shape) == np.array(target.shape[:source.ndim])
  ones = np.array(source.shape) == np.ones((source.ndim,))
  if np.all(same_shape + ones):
    broadcast_shape = source.shape + (1,) * (target.ndim - source.ndim)
    return jnp.reshape(source, broadcast_shape)
  raise ValueError(
      "source shape {} is not compatible with target shape {}".format(
          source.shape, target.shape))


if __name__ == "__main__":
  source = jnp.ones((3,))
  target = jnp.ones((3, 4))
  out = jax.jit(lhs_broadcast)(source, target)
  assert out.shape == (3, 1)
