# source: https://github.com/google-deepmind/optax/blob/v0.2.8/optax/contrib/_privacy.py
# observed on jax 0.10.2 CPU: optax's `differentially_private_aggregate` runs clean under jit
#   (`jax.config.update("jax_debug_key_reuse", True)` stays quiet): the PRNG key lives in the
#   optimizer state, and each update splits it into a new state key and one key per gradient
#   leaf (`new_key, *rngs = jax.random.split(...)`), each used once; `bsize` is read from a
#   static shape. Two jitted updates draw different noise. `differentially_private_aggregate`
#   is as in optax 0.2.8 (its `dpsgd` wrapper and the docstrings are cut); __main__ is added.
# gap: other
import warnings
from typing import NamedTuple

import jax
import jax.numpy as jnp

from optax import transforms

from optax._src import base
from optax._src import utils


class DifferentiallyPrivateAggregateState(NamedTuple):
  """State containing PRNGKey for `differentially_private_aggregate`."""

  rng_key: jax.Array


def differentially_private_aggregate(
    l2_norm_clip: jax.typing.ArrayLike,
    noise_multiplier: jax.typing.ArrayLike,
    key: jax.Array | int | None = None,
    *,
    seed: int | None = None,  # deprecated
) -> base.GradientTransformation:
  """Aggregates gradients based on the DPSGD algorithm."""

  if seed is not None:
    warnings.warn(
        '"seed" is deprecated and will be removed in optax 0.2.7, use "key".',
        DeprecationWarning,
    )
    if key is not None:
      raise ValueError('Only one of seed or key can be specified.')
    key = jax.random.key(seed)
  if key is None:
    warnings.warn('Specifying a key will be required in optax 0.2.7.')
    key = jax.random.key(0)
  key = utils.canonicalize_key(key)

  noise_std = l2_norm_clip * noise_multiplier

  def init_fn(params):
    del params
    return DifferentiallyPrivateAggregateState(rng_key=key)

  def update_fn(updates, state, params=None):
    del params
    grads_flat, grads_treedef = jax.tree.flatten(updates)
    bsize = grads_flat[0].shape[0]
    clipped, _ = transforms.per_example_global_norm_clip(
        grads_flat,
        l2_norm_clip
    )

    new_key, *rngs = jax.random.split(state.rng_key, len(grads_flat) + 1)
    noised = [
        (g + noise_std * jax.random.normal(r, g.shape, g.dtype)) / bsize
        for g, r in zip(clipped, rngs)
    ]
    return (
        jax.tree.unflatten(grads_treedef, noised),
        DifferentiallyPrivateAggregateState(rng_key=new_key),
    )

  return base.GradientTransformation(init_fn, update_fn)


if __name__ == "__main__":
  jax.config.update("jax_debug_key_reuse", True)
  params = {"w": jnp.zeros((3, 2)), "b": jnp.zeros(2)}
  per_example_grads = {"w": jnp.ones((4, 3, 2)), "b": jnp.ones((4, 2))}
  tx = differentially_private_aggregate(1.0, 0.5, key=jax.random.key(0))
  state = tx.init(params)
  update = jax.jit(tx.update)
  u1, state = update(per_example_grads, state)
  u2, state = update(per_example_grads, state)
  assert u1["w"].shape == (3, 2) and u1["b"].shape == (2,)
  assert not jnp.allclose(u1["w"], u2["w"])
  assert not jnp.allclose(u1["w"][0, 0], u1["b"][0])
