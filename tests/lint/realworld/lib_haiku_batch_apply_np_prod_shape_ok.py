# source: https://github.com/google-deepmind/dm-haiku/blob/15600d134707765ccb4e85d0f3e475a07d50c274/haiku/_src/basic.py
#   (haiku's BatchApply after the commit "Use original numpy, not jax.numpy, for shape
#   calculations": `np.prod` of the static shape)
# observed on jax 0.10.2 CPU: runs clean under jax.jit: `np.prod(x.shape[:num_dims])` is a
#   NumPy integer, so the reshape gets a concrete shape. Added: the __main__ block;
#   `jax.tree_leaves`/`jax.tree_map`, removed from jax, are spelled
#   `jax.tree_util.tree_leaves`/`jax.tree_util.tree_map`; the module's hk.Linear and other
#   classes are left out.
# gap: omnistaging
import jax
import jax.numpy as jnp
import numpy as np


def ndim_at_least(x, num_dims):
  if not isinstance(x, jnp.ndarray):
    x = jnp.asarray(x)
  return len(x.shape) >= num_dims


def arbitrary_mergeable_leaf(min_num_dims, args, kwargs):
  for a in jax.tree_util.tree_leaves(args):
    if ndim_at_least(a, min_num_dims):
      return a
  for k in jax.tree_util.tree_leaves(kwargs):
    if ndim_at_least(k, min_num_dims):
      return k
  # Couldn't find a satisfactory leaf.
  return None


def merge_leading_dims(x, num_dims):
  """Merge leading dimensions."""
  # Don't merge if there aren't dimensions to merge.
  if not ndim_at_least(x, num_dims):
    return x

  new_shape = (np.prod(x.shape[:num_dims]),) + x.shape[num_dims:]
  return jnp.reshape(x, new_shape)


def split_leading_dim(x, to_dim):
  new_shape = to_dim + x.shape[1:]
  return jnp.reshape(x, new_shape)


class BatchApply:
  """Temporarily merges leading dimensions of input tensors.

  Merges the leading dimensions of a tensor into a single dimension, runs the
  given callable, then splits the leading dimension of the result to match the
  input.

  Input arrays whose rank is smaller than the number of dimensions to collapse
  are passed unmodified.

  This may be useful for applying a module to each timestep of e.g. a
  [Time, Batch, ...] array.

  For some `f`s and platforms, this may be more efficient than `jax.vmap`,
  especially when combined with other transformations like `jax.grad`.
  """

  def __init__(self, f, num_dims=2):
    """Constructs a BatchApply module.

    Args:
      f: The callable to be applied to the reshaped array.
      num_dims: The number of dimensions to merge.
    """
    self._f = f
    self.num_dims = num_dims

  def __call__(self, *args, **kwargs):
    example = arbitrary_mergeable_leaf(self.num_dims, args, kwargs)
    if example is None:
      msg = "BatchApply requires at least one input with ndim >= {}."
      raise ValueError(msg.format(self.num_dims))
    merge = lambda x: merge_leading_dims(x, self.num_dims)
    split = lambda x: split_leading_dim(x, example.shape[:self.num_dims])
    args = jax.tree_util.tree_map(merge, args)
    kwargs = jax.tree_util.tree_map(merge, kwargs)
    outputs = self._f(*args, **kwargs)
    return jax.tree_util.tree_map(split, outputs)


if __name__ == "__main__":
  x = jnp.ones((3, 4, 5))
  out = jax.jit(BatchApply(jnp.tanh))(x)
  assert out.shape == (3, 4, 5)
