# source: https://github.com/Physical-Intelligence/openpi/blob/15a9616a00943ada6c20a0f158e3adb39df2ccac/src/openpi/models/pi0_fast.py
#   (make_attn_mask, left_to_right_align and put_along_last_axis, the helpers that
#   Pi0FAST.sample_actions runs under jit)
# observed on jax 0.10.2 CPU: under jax.jit the vmapped left_to_right_align checks ranks
#   and shapes with `assert` (Python ints, fine under jit) and rolls each row by a traced
#   per-example length (`jnp.roll` takes a traced shift); put_along_last_axis writes at a
#   traced position through a one-hot mask. The results match the expected right-aligned
#   rows. Kept verbatim; the __main__ block (a prefix of two examples with 3 and 5 valid
#   tokens) is added.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp


def make_attn_mask(input_mask, mask_ar):
    """Adapted from big_vision.

    Tokens can attend to valid inputs tokens which have a cumulative mask_ar
    smaller or equal to theirs. This way `mask_ar` bool[?B, N] can be used to
    setup several types of attention, for example:

      [[1 1 1 1 1 1]]: pure causal attention.

      [[0 0 0 1 1 1]]: prefix-lm attention. The first 3 tokens can attend between
          themselves and the last 3 tokens have a causal attention. The first
          entry could also be a 1 without changing behaviour.

      [[1 0 1 0 1 0 0 1 0 0]]: causal attention between 4 blocks. Tokens of a
          block can attend all previous blocks and all tokens on the same block.

    Args:
      input_mask: bool[B, N] true if its part of the input, false if padding.
      mask_ar: bool[?B, N] mask that's true where previous tokens cannot depend on
        it and false where it shares the same attention mask as the previous token.
    """
    mask_ar = jnp.broadcast_to(mask_ar, input_mask.shape)
    cumsum = jnp.cumsum(mask_ar, axis=1)
    attn_mask = cumsum[:, None, :] <= cumsum[:, :, None]
    valid_mask = input_mask[:, None, :] * input_mask[:, :, None]
    return jnp.logical_and(attn_mask, valid_mask)


@jax.vmap
def left_to_right_align(x, input_mask, attn_mask):
    """Converts input from left-align to right-aligned."""
    # Due to vmap, this is operating in a single example (not batch level).
    assert x.ndim == 2
    assert input_mask.ndim == 1
    assert attn_mask.ndim == 2
    assert x.shape[0] == input_mask.shape[0]
    assert attn_mask.shape[0] == attn_mask.shape[1], attn_mask.shape
    seqlen = jnp.max(input_mask * jnp.arange(input_mask.shape[0])) + 1
    x = jnp.roll(x, -seqlen, axis=0)
    input_mask = jnp.roll(input_mask, -seqlen, axis=0)
    attn_mask = jnp.roll(attn_mask, -seqlen, axis=(0, 1))
    return x, input_mask, attn_mask


def put_along_last_axis(arr, indices, values):
    """Like np.put_along_axis(..., axis=-1), since jax is missing it."""
    assert arr.ndim == indices.ndim == values.ndim, (arr.ndim, indices.ndim, values.ndim)
    onehot = jax.nn.one_hot(indices, arr.shape[-1], dtype=values.dtype)
    put_mask = jnp.einsum("...i,...in->...n", jnp.ones(values.shape, jnp.int32), onehot)
    put_values = jnp.einsum("...i,...in->...n", values, onehot)
    return jnp.where(put_mask, put_values, arr)


@jax.jit
def prefill(x, input_mask, mask_ar, step, token):
    attn_mask = make_attn_mask(input_mask, mask_ar)
    x, input_mask, attn_mask = left_to_right_align(x, input_mask, attn_mask)
    out = jnp.zeros((x.shape[0], 4))
    out = put_along_last_axis(out, jnp.broadcast_to(step, (x.shape[0], 1)), token)
    return x, input_mask, attn_mask, out


if __name__ == "__main__":
    n = 6
    lengths = jnp.array([3, 5])
    input_mask = jnp.arange(n)[None, :] < lengths[:, None]
    x = jnp.where(input_mask, jnp.arange(1, n + 1)[None, :], 0)[..., None].astype(jnp.float32)
    mask_ar = jnp.zeros((n,), jnp.int32)
    x, input_mask, attn_mask, out = prefill(x, input_mask, mask_ar, jnp.array(2),
                                            jnp.array([[7.0], [9.0]]))
    assert x[0, :, 0].tolist() == [0, 0, 0, 1, 2, 3], x[0, :, 0]
    assert x[1, :, 0].tolist() == [0, 1, 2, 3, 4, 5], x[1, :, 0]
    assert input_mask[0].tolist() == [False, False, False, True, True, True]
    assert attn_mask.shape == (2, n, n)
    assert out.tolist() == [[0, 0, 7, 0], [0, 0, 9, 0]], out
