# source: https://github.com/huggingface/transformers/pull/23356
# observed on jax 0.10.2 CPU: calling the Flax MBart `shift_tokens_right` from a jitted step
#   raises TracerArrayConversionError at `np.array(input_ids)` (the traceback the pull request
#   quotes: "line 226, in shift_tokens_right / prev_output_tokens = np.array(input_ids).copy()").
#   Behind it, fixing each line in turn shows the rest fail the same way under jit: the two
#   `np.where` calls and the `np.array` of the end-of-sentence tokens convert tracers to NumPy
#   (TracerArrayConversionError), and the two item assignments raise TypeError on a JAX array;
#   the pull request rewrote the function with `jnp` and `.at[...]` updates.
#   The function is the "previous" code the pull request quotes (transformers'
#   models/mbart/modeling_flax_mbart.py). Added: the imports and a jitted step calling it with
#   a small label batch and `pad_token_id = 1`.
# gap: types
import jax
import jax.numpy as jnp
import numpy as np


def shift_tokens_right(input_ids: jnp.ndarray, pad_token_id: int) -> jnp.ndarray:
    """
    Shift input ids one token to the right, and wrap the last non pad token (the <LID> token) Note that MBart does not
    have a single `decoder_start_token_id` in contrast to other Bart-like models.
    """
    prev_output_tokens = np.array(input_ids).copy()  # expect: JIT402

    if pad_token_id is None:
        raise ValueError("self.model.config.pad_token_id has to be defined.")

    # replace possible -100 values in labels by `pad_token_id`
    prev_output_tokens = np.where(prev_output_tokens == -100, pad_token_id, input_ids)  # tolerate: JIT402
    index_of_eos = (np.where(prev_output_tokens != pad_token_id, 1, 0).sum(axis=-1) - 1).reshape(-1, 1)  # tolerate: JIT402
    decoder_start_tokens = np.array(  # tolerate: JIT402
        [prev_output_tokens[i, eos_idx] for i, eos_idx in enumerate(index_of_eos)], dtype=np.int32
    ).squeeze()

    prev_output_tokens[:, 1:] = prev_output_tokens[:, :-1].copy()  # tolerate: JIT501
    prev_output_tokens[:, 0] = decoder_start_tokens  # tolerate: JIT501

    return prev_output_tokens


pad_token_id = 1
labels = jnp.array([[250004, 47, 9, 2, 1, 1], [250004, 8, 2, 1, 1, 1]])


@jax.jit
def prepare_decoder_inputs(labels):
    return shift_tokens_right(labels, pad_token_id)


decoder_input_ids = prepare_decoder_inputs(labels)
