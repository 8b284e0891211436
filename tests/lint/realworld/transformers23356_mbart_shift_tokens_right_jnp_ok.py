# source: https://github.com/huggingface/transformers/pull/23356
# observed on jax 0.10.2 CPU: the pull request's `shift_tokens_right` (`jnp` instead of `np`,
#   `.at[...].set` instead of item assignment) runs clean under `jax.jit` and gives the same
#   decoder inputs as the NumPy original run eagerly on the same labels (the `__main__` block
#   checks both). The function is as merged (models/mbart/modeling_flax_mbart.py after the pull
#   request; docstring and comment as before it). Added: the imports, a jitted step calling it
#   with a small label batch and `pad_token_id = 1`, and in `__main__` the NumPy original as a
#   reference, run on concrete arrays only.
# gap: types
import jax
import jax.numpy as jnp
import numpy as np


def shift_tokens_right(input_ids: jnp.ndarray, pad_token_id: int) -> jnp.ndarray:
    """
    Shift input ids one token to the right, and wrap the last non pad token (the <LID> token) Note that MBart does not
    have a single `decoder_start_token_id` in contrast to other Bart-like models.
    """
    prev_output_tokens = jnp.array(input_ids).copy()

    if pad_token_id is None:
        raise ValueError("self.model.config.pad_token_id has to be defined.")

    # replace possible -100 values in labels by `pad_token_id`
    prev_output_tokens = jnp.where(prev_output_tokens == -100, pad_token_id, input_ids)
    index_of_eos = (jnp.where(prev_output_tokens != pad_token_id, 1, 0).sum(axis=-1) - 1).reshape(-1, 1)
    decoder_start_tokens = jnp.array(
        [prev_output_tokens[i, eos_idx] for i, eos_idx in enumerate(index_of_eos)], dtype=jnp.int32
    ).squeeze()

    prev_output_tokens = prev_output_tokens.at[:, 1:].set(prev_output_tokens[:, :-1])
    prev_output_tokens = prev_output_tokens.at[:, 0].set(decoder_start_tokens)

    return prev_output_tokens


pad_token_id = 1
labels = jnp.array([[47, 9, 2, 250004, 1, 1], [8, 2, 250004, 1, 1, 1]])


@jax.jit
def prepare_decoder_inputs(labels):
    return shift_tokens_right(labels, pad_token_id)


decoder_input_ids = prepare_decoder_inputs(labels)


if __name__ == "__main__":
    def shift_tokens_right_numpy(input_ids, pad_token_id):
        prev_output_tokens = np.array(input_ids).copy()
        prev_output_tokens = np.where(prev_output_tokens == -100, pad_token_id, input_ids)
        index_of_eos = (np.where(prev_output_tokens != pad_token_id, 1, 0).sum(axis=-1) - 1).reshape(-1, 1)
        decoder_start_tokens = np.array(
            [prev_output_tokens[i, eos_idx] for i, eos_idx in enumerate(index_of_eos)], dtype=np.int32
        ).squeeze()
        prev_output_tokens[:, 1:] = prev_output_tokens[:, :-1].copy()
        prev_output_tokens[:, 0] = decoder_start_tokens
        return prev_output_tokens

    expected = shift_tokens_right_numpy(np.asarray(labels), pad_token_id)
    assert np.array_equal(np.asarray(decoder_input_ids), expected), (decoder_input_ids, expected)
    assert decoder_input_ids[0, 0] == 250004 and decoder_input_ids[1, 0] == 250004
