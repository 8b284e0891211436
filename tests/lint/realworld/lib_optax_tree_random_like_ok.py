# source: https://github.com/google-deepmind/optax/blob/v0.2.8/optax/tree_utils/_random.py
# observed on jax 0.10.2 CPU: optax's `tree_split_key_like` / `tree_random_like` run clean
#   under jit (`jax.config.update("jax_debug_key_reuse", True)` stays quiet): the key is split
#   once into one key per leaf and each leaf's sampler gets its own key; the sampler's
#   signature is inspected and the leaves' shapes, dtypes and shardings are read at trace
#   time. The functions are as in optax 0.2.8 (docstrings cut); __main__ is added.
# gap: other
from collections.abc import Callable
import inspect
from typing import Optional, Union

import jax
import jax.numpy as jnp
from optax._src import base


def tree_split_key_like(
    rng_key: base.PRNGKey, target_tree: base.ArrayTree
) -> base.ArrayTree:
  """Split keys to match structure of target tree."""
  tree_def = jax.tree.structure(target_tree)
  keys = jax.random.split(rng_key, tree_def.num_leaves)
  return jax.tree.unflatten(tree_def, keys)


def tree_random_like(
    rng_key: base.PRNGKey,
    target_tree: base.ArrayTree,
    sampler: Union[
        Callable[[base.PRNGKey, base.Shape, jax.typing.DTypeLike],
                 jax.typing.ArrayLike],
        Callable[[base.PRNGKey, base.Shape, jax.typing.DTypeLike,
                  jax.sharding.Sharding],
                 jax.typing.ArrayLike]] = jax.random.normal,
    dtype: Optional[jax.typing.DTypeLike] = None,
) -> base.ArrayTree:
  """Create tree with random entries of the same shape as target tree."""
  keys_tree = tree_split_key_like(rng_key, target_tree)
  sampler_ = sampler
  if "out_sharding" not in inspect.signature(sampler).parameters:
    sampler_ = lambda key, shape, dtype, *, out_sharding: sampler(  # pylint: disable=unnecessary-lambda
        key, shape, dtype)  # pytype: disable=wrong-arg-count
  return jax.tree.map(
      # pytype: disable=wrong-keyword-args
      lambda leaf, key: sampler_(key, leaf.shape, dtype or leaf.dtype,
                                 out_sharding=jax.typeof(leaf).sharding),
      # pytype: enable=wrong-keyword-args
      target_tree,
      keys_tree,
  )


def tree_unwrap_random_key_data(input_tree: base.ArrayTree) -> base.ArrayTree:
  """Unwrap random.key objects in a tree for numerical comparison."""
  def _unwrap_random_key_data(x):
    if (isinstance(x, jax.Array)
        and jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)):
      return jax.random.key_data(x)
    return x

  return jax.tree.map(_unwrap_random_key_data, input_tree)


if __name__ == "__main__":
  jax.config.update("jax_debug_key_reuse", True)
  target = {"a": jnp.zeros((4,)), "b": jnp.zeros((4,)), "c": jnp.zeros((2, 3))}
  noise = jax.jit(tree_random_like)(jax.random.key(0), target)
  assert jax.tree.structure(noise) == jax.tree.structure(target)
  assert noise["c"].shape == (2, 3)
  assert not jnp.allclose(noise["a"], noise["b"])
  uniform = jax.jit(tree_random_like, static_argnums=2)(
      jax.random.key(1), target, jax.random.uniform)
  assert all(bool(((x >= 0) & (x < 1)).all()) for x in jax.tree.leaves(uniform))
  keys = jax.jit(tree_split_key_like)(jax.random.key(2), target)
  assert jax.tree.leaves(tree_unwrap_random_key_data(keys))[0].shape == (2,)
