# source: https://github.com/tristanheywood/nimbleGPT/blob/e6764449e83e6a10efbf1703b543907a1e5d86c9/nimblegpt/jgenerate.py
#   (an individual's GPT-2 inference port in flax ("nimbleGPT"): the jitted text generator,
#   a lax.fori_loop over new tokens inside a jax.jit made by a factory function)
# observed on jax 0.10.2 CPU: the fori_loop body samples each token from `rng` and then
#   makes the next iteration's key with jax.random.split(rng)[0] from that same, already
#   consumed key: JAX's key-reuse checker raises KeyReuseError for the jitted generator at
#   that split, and the draws are tied to the keys that follow them (threefry is
#   partitionable on 0.10.2: the first random bits the draw takes from key t are the XOR of
#   the two words of key t+1). Everything else jits correctly: the padding count n_padd + i
#   and max_new_tokens are traced and only used in arithmetic and as the loop bound.
#   Changed: `from jax.random import KeyArray` (gone from JAX) -> `KeyArray = jax.Array`.
#   Added: stand-ins for `.bpe.get_encoder` (a character encoder) and `.jmodel.JGPT` (an
#   embedding and a dense layer with JGPT's `apply(params, indices, n_padd=...)` signature
#   and its position rotation by n_padd), a small config, and the __main__ block.
# gap: other
# observed: line 91 with jax_debug_key_reuse on, the jitted generator raises KeyReuseError at this split of the key sample_token has just drawn from; the next key's words XOR to the first random bits of the draw

"""Utilities jitted text generating with nimbleGPT."""

import jax
import jax.numpy as jnp
import numpy as np
from typing import Callable, Tuple
from jax import Array

KeyArray = jax.Array  # was `from jax.random import KeyArray`, removed from JAX

import types
import flax.linen as nn


def get_encoder():  # stand-in for .bpe.get_encoder (GPT-2's BPE): characters as tokens
    return types.SimpleNamespace(encode=lambda s: [ord(c) % 64 for c in s],
                                 decode=lambda idxs: "".join(chr(48 + int(i)) for i in idxs))


class JGPT(nn.Module):  # stand-in for .jmodel.JGPT: same call signature, tiny body
    C: object

    @nn.compact
    def __call__(self, indices, n_padd: int = 0):
        (T, ) = indices.shape
        pos = (jnp.arange(0, T) - n_padd) % self.C.block_size
        x = nn.Embed(self.C.vocab_size, self.C.n_embd)(indices) + nn.Embed(self.C.block_size, self.C.n_embd)(pos)
        return nn.Dense(features=self.C.vocab_size, use_bias=False)(x)


def sample_token(rng, logits: jnp.array, temperature=1.0, top_k=40):
    """
    Parameters
    ----------
    logits
      1D array of length `config.vocab_size` (50257 for gpt2).
    """
    logits = logits / temperature
    top_logits, top_indices = jax.lax.top_k(logits, k=top_k)
    samp_idx = jax.random.categorical(rng, top_logits)  # Index into `top_indices`.
    return top_indices[samp_idx]


def jitted_text_generator(
    config, params=None, temperature=1.0, top_k=40
) -> Callable[[KeyArray, Array, int], Array]:
    """
    Creates a function with the signature:
        generate_text(rng: KeyArray, prompt: str, max_new_tokens: int = 20)
    which can be used to generate text from a trained model.

    If `params = None`, the signature is:
        generate_text(rng: KeyArray, params, prompt: str, max_new_tokens: int = 20)

    Passing `params` to this function is convenient but uses more GPU memory.
    """
    # Only gpt2 is supported for now.
    assert config.model_type == "gpt2", config.model_type

    encoder = get_encoder()

    @jax.jit
    def generate_tokens(
        rng: KeyArray, params, pad_tok_idxs: Array, n_padd: int, max_new_tokens=20
    ):
        def body(i: int, rng_and_tok_idxs: Tuple[KeyArray, Array]):
            rng, tok_idxs = rng_and_tok_idxs

            logits = JGPT(config).apply(params, tok_idxs, n_padd=n_padd + i)
            next_tok_idx = sample_token(
                rng, logits[-1], temperature=temperature, top_k=top_k
            )

            rng = jax.random.split(rng)[0]  # expect: JIT502
            tok_idxs = jnp.roll(tok_idxs, -1).at[-1].set(next_tok_idx)
            return rng, tok_idxs

        return jax.lax.fori_loop(0, max_new_tokens, body, (rng, pad_tok_idxs))[1]

    def generate_text(rng: KeyArray, params, prompt: str, max_new_tokens: int = 20):
        prompt_idxs = jnp.array(encoder.encode(prompt))
        n_padd = config.block_size - len(prompt_idxs)
        pad_prompt_idxs = jnp.pad(prompt_idxs, (n_padd, 0))
        pad_tok_idxs = generate_tokens(
            rng, params, pad_prompt_idxs, n_padd, max_new_tokens
        )
        text = encoder.decode(np.array(pad_tok_idxs[n_padd - max_new_tokens :]))
        return text

    if params is not None:
        return lambda rng, prompt, max_new_tokens: generate_text(
            rng, params, prompt, max_new_tokens
        )

    return generate_text


if __name__ == "__main__":
    import traceback

    config = types.SimpleNamespace(model_type="gpt2", block_size=16, vocab_size=64, n_embd=8)
    params = JGPT(config).init(jax.random.PRNGKey(0), jnp.zeros((16,), jnp.int32))
    generate_text = jitted_text_generator(config, top_k=8)
    print(generate_text(jax.random.PRNGKey(1), params, "hello", 6))

    # the draw at step t and the key of step t+1: the first 32 random bits categorical takes
    # from key t (its Gumbel noise for top index 0) are the XOR of key t+1's two words
    key_t = jax.random.PRNGKey(1)
    first_bits = jax.random.bits(key_t, (8,), jnp.uint32)[0]
    key_next = jax.random.split(key_t)[0]  # what line 91 computes  # tolerate: JIT502
    assert int(first_bits) == int(key_next[0] ^ key_next[1])

    jax.config.update("jax_debug_key_reuse", True)
    try:
        generate_text(jax.random.key(1), params, "hello", 6)
        raise AssertionError("no error")
    except jax.errors.KeyReuseError as e:
        # the reuse is found when the jitted body is checked; JAX reports the source line of
        # the failing equation in the error's cause
        frames = [fr for fr in traceback.extract_tb(e.__cause__.__traceback__) if fr.filename == __file__]
        assert frames[-1].lineno == 91, frames[-1].lineno
    finally:
        jax.config.update("jax_debug_key_reuse", False)
