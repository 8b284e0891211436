# source: https://github.com/ayaka14732/llama-2-jax/blob/c5377b75127aaae8a8b45a7ac880c763d2d367d8/lib/generation/__init__.py (with lib/logits_processing/__init__.py and generate.py at the same commit; the rewrite that replaced the legacy top-p loop of issue #14)
# observed on jax 0.10.2 CPU: runs clean; _generate_first/_generate_rest compile once for repeated batches of the same shape and fresh subkeys give fresh samples
# gap: other
# einops calls (op.einsum / op.rearrange) are rewritten with jnp.einsum / indexing (einops is not installed).
# Stand-ins: a one-layer attention model for lib/llama (forward_llama_model, KVCache, shift_left_kv_cache,
# RotaryValues, make_rotary_values, get_rotary_values_at_position, reduced from the same commit), a tiny
# model_config_llama2_7B, a character tokenizer in place of LlamaTokenizer, random params; __main__ block added.
from functools import partial
import math
from operator import getitem
from typing import Any, Callable, NamedTuple

import jax
from jax import Array
import jax.nn as nn
import jax.numpy as jnp
import jax.random as rand


# ---- stand-ins for lib/llama (reduced from c5377b7) ----
class ModelConfig(NamedTuple):
    d_k: int
    d_model: int
    vocab_size: int
    rms_norm_eps: float
    dropout_rate: float | None
    return_kv_cache: bool

model_config_llama2_7B = ModelConfig(d_k=16, d_model=16, vocab_size=64, rms_norm_eps=1e-6, dropout_rate=None, return_kv_cache=False)

class LlamaModel(NamedTuple):
    embedding: Any
    norm: Any

class Llama(NamedTuple):
    model: LlamaModel
    lm_head: Any

class KVCache(NamedTuple):
    k_cache: Any  # Array
    v_cache: Any  # Array

def shift_left_kv_cache(kv_cache: KVCache) -> KVCache:
    k_cache, v_cache = kv_cache
    k_cache = jnp.roll(k_cache, -1, axis=-2)  # -2: dimension L
    v_cache = jnp.roll(v_cache, -1, axis=-2)  # -2: dimension L
    return KVCache(k_cache, v_cache)

def _make_weights(seq_len: int, d_k: int) -> tuple[Array, Array]:
    inv_freq = 1. / (10000 ** (jnp.arange(0, d_k, 2) / d_k))
    sinusoid_inp = jnp.einsum('L,j->Lj', jnp.arange(seq_len), inv_freq)
    sin_val = jnp.tile(jnp.sin(sinusoid_inp), (1, 2))
    cos_val = jnp.tile(jnp.cos(sinusoid_inp), (1, 2))
    return sin_val, cos_val

def _rotate_half(x: Array) -> Array:
    x1, x2 = jnp.split(x, 2, axis=-1)
    return jnp.concatenate([-x2, x1], axis=-1)

class RotaryValues(NamedTuple):
    sin_val: Array
    cos_val: Array

def forward_rotary_embedding(m: Array, *, rotary_values: RotaryValues) -> Array:
    sin_val, cos_val = rotary_values
    return (m * cos_val + _rotate_half(m) * sin_val).astype(m.dtype)

def make_rotary_values(leftpad_len: Array | None, batch_size: int, seq_len: int, *, model_config: ModelConfig) -> RotaryValues:
    with jax.ensure_compile_time_eval():
        sin_val, cos_val = _make_weights(seq_len, model_config.d_k)

    sin_val = jnp.repeat(sin_val[None], batch_size, axis=0)
    cos_val = jnp.repeat(cos_val[None], batch_size, axis=0)

    if leftpad_len is not None:
        roll_func = jax.vmap(lambda a, shift: jnp.roll(a, shift, axis=-2))  # -2: dimension L
        sin_val = roll_func(sin_val, leftpad_len)
        cos_val = roll_func(cos_val, leftpad_len)

    return RotaryValues(sin_val, cos_val)

def get_rotary_values_at_position(rotary_values: RotaryValues, position: Array) -> RotaryValues:
    sin_val, cos_val = rotary_values
    sin_val = sin_val[:, position][:, None]
    cos_val = cos_val[:, position][:, None]
    rotary_values = RotaryValues(sin_val, cos_val)
    return rotary_values

@partial(jax.jit, static_argnames=('model_config'))
def forward_llama_model(params: LlamaModel, seq: Array, qk_mask: Array, *, rotary_values: RotaryValues, kv_cache: KVCache | None=None, key: Array | None=None, model_config: ModelConfig) -> tuple[Array, KVCache | None]:
    assert seq.dtype == jnp.uint16
    assert qk_mask.dtype == jnp.bool_
    x = params.embedding[seq]  # B S M
    q = forward_rotary_embedding(x, rotary_values=rotary_values)
    k = forward_rotary_embedding(x, rotary_values=rotary_values)
    v = x
    if kv_cache is not None:
        assert seq.shape[1] == 1
        k_cache, v_cache = kv_cache
        k = k_cache.at[:, -1:].set(k)
        v = v_cache.at[:, -1:].set(v)
    qk = jnp.einsum('bsk,bdk->bsd', q, k) / math.sqrt(model_config.d_k)
    mask = qk_mask[:, 0, 0]
    qk = jnp.where(mask, qk, -jnp.inf)
    qk = nn.softmax(qk)
    qk = jnp.where(mask, qk, 0)
    out = jnp.einsum('bsd,bdv->bsv', qk, v)
    out = out / jnp.sqrt((out * out).mean(axis=-1, keepdims=True) + model_config.rms_norm_eps) * params.norm
    kv_cache = None if not model_config.return_kv_cache else KVCache(k, v)
    return out, kv_cache


# ---- lib/logits_processing/__init__.py ----
def PresencePenaltyProcessor(penalty: float) -> Callable:
    def inner(logits: Array, *, seq: Array, attn_mask: Array, **kwargs) -> Array:
        *_, vocab_size = logits.shape
        exists = jax.vmap(lambda row, row_mask: jnp.bincount(row, weights=row_mask.astype(jnp.uint16), length=vocab_size).astype(jnp.bool_))(seq, attn_mask)  # (batch_size, vocab_size)
        return logits - exists * penalty
    return inner

def TopKSampler(top_k: int) -> Callable:
    def inner(logits: Array, *, key: Array, **kwargs) -> Array:
        batch_size, _ = logits.shape
        keys = rand.split(key, num=batch_size)

        def inner_inner(logits: Array, key: Array) -> Array:
            values, indices = jax.lax.top_k(logits, k=top_k)
            indices = indices.astype(jnp.uint16)
            selected_index = rand.categorical(key, values)
            selected_token_id = indices[selected_index]
            return selected_token_id

        selected_token_ids = jax.vmap(inner_inner)(logits, keys)
        return selected_token_ids
    setattr(inner, 'requires_key', True)
    return inner

def TopPSampler(top_p: float) -> Callable:
    def inner(logits: Array, *, key: Array, **kwargs) -> Array:
        batch_size, vocab_size = logits.shape

        indices = jnp.broadcast_to(jnp.arange(vocab_size, dtype=jnp.uint16), (batch_size, vocab_size))
        sorted_logits, sorted_indices = jax.lax.sort_key_val(-logits, indices, is_stable=False)
        sorted_logits = -sorted_logits
        sorted_probs = nn.softmax(sorted_logits)
        cum_probs = jnp.cumsum(sorted_probs, axis=-1)
        threshold_probs = jnp.maximum(cum_probs[:, 0], top_p)  # guarantee that at least one token will not be masked
        masked_sorted_logits = jnp.where(cum_probs >= threshold_probs[:, None], -jnp.inf, sorted_logits)

        key, subkey = rand.split(key)
        selected_indices = rand.categorical(subkey, masked_sorted_logits)
        selected_token_ids = jax.vmap(getitem)(sorted_indices, selected_indices)  # type: ignore[call-overload]
        return selected_token_ids
    setattr(inner, 'requires_key', True)
    return inner

def make_logits_processor(*callables):
    def inner(logits: Array, seq: Array, attn_mask: Array, key: Array | None) -> Array:
        for f in callables:
            if not getattr(f, 'requires_key', False):
                logits = f(logits, seq=seq, attn_mask=attn_mask)
            else:
                assert key is not None
                key, subkey = rand.split(key)
                logits = f(logits, seq=seq, attn_mask=attn_mask, key=subkey)
        return logits
    return inner


# ---- lib/generation/__init__.py ----
@partial(jax.jit, static_argnames=('logits_processor',))
def _generate_first(params: Llama, seq: Array, attn_mask: Array, logits_processor: Callable, *, rotary_values: RotaryValues, key: Array) -> tuple[Array, Array, Array, KVCache]:
    qk_mask = jnp.tril(jnp.einsum('bi,bj->bij', attn_mask, attn_mask))[:, None, None]  # causal QK mask
    outputs, kv_cache = forward_llama_model(params.model, seq, qk_mask, rotary_values=rotary_values, model_config=model_config_llama2_7B._replace(return_kv_cache=True))

    logits = outputs[:, -1] @ params.lm_head
    selected_token_ids = logits_processor(logits, seq=seq, attn_mask=attn_mask, key=key)

    seq = jnp.roll(seq, -1, axis=-1).at[:, -1].set(selected_token_ids)
    attn_mask = jnp.roll(attn_mask, -1, axis=-1).at[:, -1].set(True)
    kv_cache = shift_left_kv_cache(kv_cache)

    return seq, attn_mask, selected_token_ids, kv_cache

class GenerationState(NamedTuple):
    seq: Array
    attn_mask: Array
    selected_token_ids: Array
    max_n_iters: Array
    rotary_values: RotaryValues
    rotary_values_position: Array
    kv_cache: KVCache
    key: Array

@partial(jax.jit, static_argnames=('logits_processor',))
def _generate_rest(params: Llama, seq: Array, attn_mask: Array, selected_token_ids: Array, max_n_iters: Array, logits_processor: Callable, *, rotary_values: RotaryValues, kv_cache: KVCache, key: Array) -> Array:
    def cond_fun(state: GenerationState) -> Array:
        return state.max_n_iters.astype(jnp.bool_)

    def body_fun(state: GenerationState) -> GenerationState:
        seq, attn_mask, selected_token_ids, max_n_iters, rotary_values, rotary_values_position, kv_cache, key = state

        seq_ = selected_token_ids[:, None]
        qk_mask = attn_mask[:, None, None, None, :]
        rotary_values_ = get_rotary_values_at_position(rotary_values, rotary_values_position)
        outputs, kv_cache = forward_llama_model(params.model, seq_, qk_mask, rotary_values=rotary_values_, kv_cache=kv_cache, model_config=model_config_llama2_7B._replace(return_kv_cache=True))

        logits = outputs[:, -1] @ params.lm_head
        key, subkey = rand.split(key)
        selected_token_ids = logits_processor(logits, seq=seq, attn_mask=attn_mask, key=subkey)

        seq = jnp.roll(seq, -1, axis=-1).at[:, -1].set(selected_token_ids)
        attn_mask = jnp.roll(attn_mask, -1, axis=-1).at[:, -1].set(True)
        kv_cache = shift_left_kv_cache(kv_cache)

        rotary_values_position += 1
        max_n_iters -= 1
        # TODO: early stopping

        return GenerationState(seq, attn_mask, selected_token_ids, max_n_iters, rotary_values, rotary_values_position, kv_cache, key)

    rotary_values_position = jnp.array(0, jnp.uint16)
    initial_state = GenerationState(seq, attn_mask, selected_token_ids, max_n_iters, rotary_values, rotary_values_position, kv_cache, key)
    final_state = jax.lax.while_loop(cond_fun, body_fun, initial_state)
    return final_state.seq

def generate(sentences: list[str], tokenizer, params: Llama, logits_processor: Callable, *, max_len: int, key: Array) -> list[str]:
    batch_size = len(sentences)

    inputs = tokenizer(sentences, padding='max_length', truncation=True, max_length=max_len, return_tensors='jax')
    seq = inputs.input_ids.astype(jnp.uint16)
    attn_mask = inputs.attention_mask.astype(jnp.bool_)
    assert not attn_mask.all(axis=-1).any(), 'No room for generation since the length of a sentence is greater than `max_length`.'

    leftpad_len = attn_mask.argmax(axis=-1).astype(jnp.uint16)
    rotary_values = make_rotary_values(leftpad_len, batch_size, max_len, model_config=model_config_llama2_7B)

    key, subkey = rand.split(key)
    seq, attn_mask, selected_token_ids, kv_cache = _generate_first(params, seq, attn_mask, logits_processor, rotary_values=rotary_values, key=subkey)

    max_n_iters = leftpad_len.min()
    key, subkey = rand.split(key)
    seq = _generate_rest(params, seq, attn_mask, selected_token_ids, max_n_iters, logits_processor, rotary_values=rotary_values, kv_cache=kv_cache, key=subkey)

    return tokenizer.batch_decode(seq, skip_special_tokens=True)


# ---- stand-in tokenizer (left padding, like LlamaTokenizer(padding_side='left')) ----
class _Encoded(NamedTuple):
    input_ids: Array
    attention_mask: Array

class CharTokenizer:
    pad = 0
    def __call__(self, sentences, *, padding, truncation, max_length, return_tensors):
        ids = [[1 + (ord(c) % 60) for c in s][-max_length:] for s in sentences]
        rows = [[self.pad] * (max_length - len(r)) + r for r in ids]
        mask = [[0] * (max_length - len(r)) + [1] * len(r) for r in ids]
        return _Encoded(jnp.array(rows), jnp.array(mask))
    def batch_decode(self, seq, skip_special_tokens=True):
        return [' '.join(str(int(t)) for t in row if int(t) != self.pad) for row in seq]


if __name__ == '__main__':
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(name) if name == '/jax/core/compile/backend_compile_duration' else None)

    cfg = model_config_llama2_7B
    k0, k1 = rand.split(rand.key(0))
    params = Llama(LlamaModel(rand.normal(k0, (cfg.vocab_size, cfg.d_model)), jnp.ones((cfg.d_model,))),
                   rand.normal(k1, (cfg.d_model, cfg.vocab_size)))
    tokenizer = CharTokenizer()
    logits_processor = make_logits_processor(
        PresencePenaltyProcessor(penalty=0.05),
        TopKSampler(top_k=6),
    )
    key = rand.key(42)
    outs = []
    batched_sentences = [['four score', 'marta is'], ['marta is', 'four score'], ['four score', 'marta is']]
    for i, sentences in enumerate(batched_sentences):
        key, subkey = rand.split(key)
        outs.append(generate(sentences, tokenizer, params, logits_processor, max_len=16, key=subkey))
        if i == 0:
            n_first = len(compiles)
    print(outs, n_first, len(compiles))
    assert len(compiles) == n_first, (n_first, len(compiles))  # no recompilation for later batches
    assert outs[0] != outs[2]  # fresh keys give fresh samples
    # top-p sampler runs under jit too
    lp2 = make_logits_processor(TopPSampler(top_p=0.9))
    print(generate(['hello'], tokenizer, params, lp2, max_len=12, key=rand.key(1)))
    print('ok')
