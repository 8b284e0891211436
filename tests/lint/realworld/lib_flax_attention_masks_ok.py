# source: https://github.com/google/flax/blob/v0.12.8/flax/linen/attention.py
#   (make_attention_mask, make_causal_mask and combine_masks, flax 0.12.8 as released;
#   docstrings shortened, type hints from flax.typing replaced by Any)
# observed on jax 0.10.2 CPU: runs clean under jit: combine_masks tests `m is not None`,
#   the length of a Python list and `x.ndim`, all Python values while tracing, and combines
#   the traced masks with jnp.logical_and.
# gap: exemption-vs-JAX
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

Array = Any
Dtype = Any


def make_attention_mask(
  query_input: Array,
  key_input: Array,
  pairwise_fn: Callable[..., Any] = jnp.multiply,
  extra_batch_dims: int = 0,
  dtype: Dtype = jnp.float32,
):
  """Mask-making helper for attention weights."""
  mask = pairwise_fn(
    jnp.expand_dims(query_input, axis=-1), jnp.expand_dims(key_input, axis=-2)
  )
  mask = jnp.expand_dims(mask, axis=-3)
  mask = jnp.expand_dims(mask, axis=tuple(range(extra_batch_dims)))
  return mask.astype(dtype)


def make_causal_mask(
  x: Array, extra_batch_dims: int = 0, dtype: Dtype = jnp.float32
) -> Array:
  """Make a causal mask for self-attention."""
  idxs = jnp.broadcast_to(jnp.arange(x.shape[-1], dtype=jnp.int32), x.shape)
  return make_attention_mask(
    idxs,
    idxs,
    jnp.greater_equal,
    extra_batch_dims=extra_batch_dims,
    dtype=dtype,
  )


def combine_masks(
  *masks: Array | None, dtype: Dtype = jnp.float32
) -> Array | None:
  """Combine attention masks."""
  masks_list = [m for m in masks if m is not None]
  if not masks_list:
    return None
  assert all(
    map(lambda x: x.ndim == masks_list[0].ndim, masks_list)
  ), f'masks must have same rank: {tuple(map(lambda x: x.ndim, masks_list))}'
  mask, *other_masks = masks_list
  for other_mask in other_masks:
    mask = jnp.logical_and(mask, other_mask)
  return mask.astype(dtype)


if __name__ == "__main__":
    @jax.jit
    def decoder_mask(tokens):
        padding = make_attention_mask(tokens > 0, tokens > 0)
        return combine_masks(padding, make_causal_mask(tokens), None)

    m = decoder_mask(jnp.array([[3, 5, 0]]))
    assert m.shape == (1, 1, 3, 3)
    assert m[0, 0].tolist() == [[1, 0, 0], [1, 1, 0], [0, 0, 0]]
