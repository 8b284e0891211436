# source: https://github.com/yixiaoer/mistral-v0.2-jax/blob/6aa8b2f1e86dfa394763a5c77fe05f9e77398f59/mistral_v0_2/lib/generate.py
# observed on jax 0.10.2 CPU: silent misbehaviour, all sampled tokens of one generate() call are drawn with the same PRNG key
# observed: line 77 every generated token is drawn by sampling() with the same `key` (never split or folded in inside the token loop), so all categorical draws of a generation reuse the same random bits
# gap: flow-sensitive
# Stand-ins: forward_mistral_lm (embedding + lm_head, no decoder layers), make_rotary_values /
# get_rotary_values_at_position (reduced from mistral_v0_2/model/rotary_embedding.py), a character
# tokenizer in place of the HF Mistral tokenizer, random params. Docstrings shortened; the beam-search
# branch (Beam, prob_beams_n, sort_beams; uses einops) is elided. __main__ block added.
from typing import NamedTuple

from jax import Array, lax
from jax.nn import softmax
import jax.numpy as jnp
import jax.random as jrand


# ---- stand-ins ----
class RotaryValues(NamedTuple):
    sin_val: Array
    cos_val: Array

def make_rotary_values(batch_size: int, seq_len: int) -> RotaryValues:
    ang = jnp.arange(seq_len)[:, None] * jnp.ones((4,))
    return RotaryValues(jnp.repeat(jnp.sin(ang)[None], batch_size, axis=0), jnp.repeat(jnp.cos(ang)[None], batch_size, axis=0))

def get_rotary_values_at_position(rotary_values: RotaryValues, position: Array) -> RotaryValues:
    sin_val, cos_val = rotary_values
    sin_val = sin_val[:, position][:, None]
    cos_val = cos_val[:, position][:, None]
    rotary_values = RotaryValues(sin_val, cos_val)
    return rotary_values

def forward_mistral_lm(params, input_ids: Array, qk_mask: Array, rotary_values: RotaryValues, kv_cache_pre):
    embedding, lm_head = params
    logits = embedding[input_ids] @ lm_head
    return logits, kv_cache_pre


# ---- mistral_v0_2/lib/generate.py ----
def generate(params, tokenizer, sentences: list[str], max_length: int, max_new_tokens: int, *, key: Array | None = None, top_k: int | None = None, top_p: float | None = None, temperature: float = 1., beam_nums: int | None = None) -> Array:
    """
    Generates text completions or continuations for a given list of input sentences using the specified language model parameters and tokenizer.
    """
    # `max_length` and `max_new_tokens` jointly influence the maximum number of tokens generated
    inputs = tokenizer(sentences, padding=True, return_tensors='jax')
    eos_ids = tokenizer(tokenizer.eos_token, return_tensors='jax').input_ids[0, 1:]  # only eos_ids, not include bos_ids
    input_ids = inputs.input_ids.astype(jnp.uint16)
    output_ids = input_ids
    batch_size, batch_len = input_ids.shape
    attn_mask = inputs.attention_mask.astype(jnp.bool_)
    qk_mask = jnp.tril(jnp.einsum('bi,bj->bij', attn_mask, attn_mask))[:, None, None]
    kv_cache = None

    generate_tokens_n = min(*(max_length - jnp.sum(attn_mask == True, axis=1)), max_new_tokens)
    rotary_values_cur = make_rotary_values(batch_size, batch_len)
    rotary_values = make_rotary_values(batch_size, batch_len + generate_tokens_n)
    for idx in range(generate_tokens_n):
        if idx != 0:
            position = jnp.array((batch_len + idx - 1), jnp.int16)
            rotary_values_cur = get_rotary_values_at_position(rotary_values, position)

        if beam_nums:
            raise NotImplementedError  # beam-search branch elided
        else:
            logits, kv_cache = forward_mistral_lm(params, input_ids, qk_mask, rotary_values_cur, kv_cache)
            logits = logits[:, -1]

            if (top_k is None or top_k == 1) and (temperature == 0. or temperature == 1.) and top_p ==  None:
                next_token = greedy_search(logits)
            else:
                # first top_K, then top_p
                if top_k:
                    logits, tokens_ids = top_k_logits(logits, temperature=temperature, top_k=top_k)
                if top_p:
                    temperature, tokens_ids = (1., tokens_ids) if top_k else (temperature, None)
                    logits, tokens_ids = top_p_logits(logits, tokens_ids=tokens_ids, temperature=temperature, top_p=top_p)
                next_token = sampling(logits, tokens_ids, key)  # expect: JIT502

            input_ids = next_token
            output_ids = jnp.concatenate((output_ids, next_token), axis=1)

        attn_mask = jnp.concatenate((attn_mask, jnp.ones((batch_size, 1), dtype=bool)), axis=1)
        qk_mask = attn_mask[:, None, None, None, :]
    return output_ids

def greedy_search(logits: Array) -> Array:
    return jnp.argmax(logits, axis=-1).reshape(-1, 1)

def top_k_logits(logits: Array, *, temperature: float = 1.0, top_k: int) -> tuple[Array, Array]:
    top_k_logits, top_k_ids = lax.top_k(logits, top_k)  # along the last axis
    return top_k_logits / temperature, top_k_ids

def top_p_logits(logits: Array, *, tokens_ids: Array | None = None, temperature: float = 1.0, top_p: float) -> tuple[Array, Array]:
    if tokens_ids is None:
        tokens_ids = jnp.argsort(-logits, axis=-1)
        logits = jnp.take_along_axis(logits, tokens_ids, axis=-1)

    probs_sorted_cumsum = jnp.cumsum(softmax(logits, axis=-1), axis=-1)
    cutoff_index = jnp.sum(probs_sorted_cumsum < top_p, axis=-1).reshape(-1, 1)
    logits = jnp.where(jnp.arange(logits.shape[-1])[None, :] <= cutoff_index, logits, -jnp.inf)
    return logits / temperature, tokens_ids

def sampling(sampling_logits: Array, tokens_ids: Array, key: Array | None = None) -> Array:
    sampling_index = jrand.categorical(key, softmax(sampling_logits)).reshape(-1, 1)
    selected_token = jnp.take_along_axis(tokens_ids, sampling_index, axis=-1)
    return selected_token


# ---- stand-in tokenizer (BOS=1, EOS=2, left padding with EOS like tokenizer.pad_token = tokenizer.eos_token) ----
class _Encoded(NamedTuple):
    input_ids: Array
    attention_mask: Array

class CharTokenizer:
    eos_token = '</s>'
    def __call__(self, sentences, padding=True, return_tensors='jax'):
        if isinstance(sentences, str):
            sentences = [sentences]
        ids = [[1] + ([2] if s == self.eos_token else [3 + ord(c) % 40 for c in s]) for s in sentences]
        n = max(len(r) for r in ids)
        return _Encoded(jnp.array([[2] * (n - len(r)) + r for r in ids]),
                        jnp.array([[0] * (n - len(r)) + [1] * len(r) for r in ids]))


if __name__ == '__main__':
    k0, k1 = jrand.split(jrand.key(0))
    params = (jrand.normal(k0, (48, 8)), jrand.normal(k1, (8, 48)))
    tokenizer = CharTokenizer()

    seen_keys = []
    _sampling = sampling
    def sampling(sampling_logits, tokens_ids, key=None):  # spy: record the key of every draw
        seen_keys.append(jrand.key_data(key))
        return _sampling(sampling_logits, tokens_ids, key)

    key = jrand.key(42)
    key, subkey = jrand.split(key)
    out = generate(params, tokenizer, ['How have you been?', 'The Lord of the Rings is a'], 40, 8,
                   key=subkey, top_k=5, top_p=0.8, temperature=0.9)
    print(out)
    assert len(seen_keys) == 8
    assert all(bool(jnp.all(k == seen_keys[0])) for k in seen_keys), 'keys differ'
    print('observed: all', len(seen_keys), 'token draws used the same key')
