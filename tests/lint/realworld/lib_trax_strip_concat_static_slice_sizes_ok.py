# source: https://github.com/google/trax/blob/28743ee6ef55f32b85d4dca73fb5ea9ec8377c8b/trax/models/research/transformer2.py
#   (_StripFromConcatenateWithPadding after commit 28743ee6, "Fix places that were passing
#   jnp.array where a shape was expected": the slice sizes are the Python ints (L2, H))
# observed on jax 0.10.2 CPU: the jitted call runs clean and returns each row's decoder
#   part, shape (2, 4, 4), starting after the encoder's real tokens. trax is not installed:
#   `fastmath.map` and `fastmath.dynamic_slice` are spelled with what trax's JAX backend
#   binds them to (`jax.lax.map`, `jax.lax.dynamic_slice`), and trax's numpy is jax.numpy.
#   Only the function is kept (the layer's forward calls it); the inputs and the jitted
#   call at the end stand in for a jitted trax forward pass.
# gap: omnistaging
import jax
import jax.numpy as jnp


def _StripFromConcatenateWithPadding(vec_ed, tok_e, tok_d):
  """Strip concatenate with padding: see the layer below for details."""
  # pylint: disable=invalid-name
  B, L, H = vec_ed.shape
  L1 = tok_e.shape[1]
  L2 = tok_d.shape[1]
  # pylint: enable=invalid-name
  if L != L1 + L2:
    raise ValueError(f'Length from encoder-decoder vectors ({L}) does not'
                     f' equal sum of lengths from encoder ({L1}) and decoder'
                     f' ({L2}).')
  if tok_e.shape != (B, L1):
    raise ValueError(f'Shape of encoder tokens, {tok_e.shape}, does not'
                     f' equal {(B, L1)}.')
  if tok_d.shape != (B, L2):
    raise ValueError(f'Shape of decoder tokens, {tok_d.shape}, does not'
                     f' equal {(B, L2)}.')

  def _UpdateRow(x):
    # (L, H), (L1, H) & (L2, H)
    row_ed, row_e, _ = x
    mask_e = row_e != 0
    len_e = jnp.sum(mask_e, dtype=jnp.int32)
    # In `row_ed` start where encoder tokens/vecs end, i.e. are index `len_e`
    # and pick up (L2, H) tensor slice from there.
    zero = jnp.array(0, dtype=len_e.dtype)  # avoid int32/int64 mismatch
    return jax.lax.dynamic_slice(row_ed, (len_e, zero), (L2, H))

  return jax.lax.map(_UpdateRow, [vec_ed, tok_e, tok_d])


if __name__ == "__main__":
  vec_ed = jnp.arange(2 * 7 * 4, dtype=jnp.float32).reshape(2, 7, 4)
  tok_e = jnp.array([[5, 6, 0], [7, 0, 0]])
  tok_d = jnp.ones((2, 4), dtype=jnp.int32)
  out = jax.jit(_StripFromConcatenateWithPadding)(vec_ed, tok_e, tok_d)
  assert out.shape == (2, 4, 4), out.shape
  assert (out[0] == vec_ed[0, 2:6]).all() and (out[1] == vec_ed[1, 1:5]).all()
