# source: https://github.com/ayaka14732/llama-2-jax/issues/14 (code: .legacy/lib/generation/top_p.py, .legacy/lib/generation/_utils.py and lib/llama/llama_model.py at https://github.com/ayaka14732/llama-2-jax/tree/18e9625)
# observed on jax 0.10.2 CPU: jax.errors.TracerIntegerConversionError at line 76 (operator.getitem under vmap indexes the (seq, kv_cache) tuple with a traced position), as in the issue
# gap: types
# forward_llama_model is a small stand-in for lib/llama/llama_model.py at 18e9625 (embedding + RMS norm only,
# no decoder); like the real one it is jitted with a static model_config and returns a (seq, kv_cache) tuple
# since the KV-cache commit, which the legacy top-p loop body still treats as the hidden-state array.
# Added: imports of the stand-ins, a tiny ModelConfig/Llama, random params and the __main__ block.
from functools import partial
from operator import getitem
from typing import Any, NamedTuple

import jax
from jax import Array
import jax.nn as nn
import jax.numpy as jnp
import jax.random as rand


# ---- stand-ins for lib/llama (reduced) ----
class ModelConfig(NamedTuple):
    d_model: int
    vocab_size: int
    rms_norm_eps: float
    dropout_rate: float | None


class LlamaModel(NamedTuple):
    embedding: Any
    norm: Any


class Llama(NamedTuple):
    model: LlamaModel
    lm_head: Any


@partial(jax.jit, static_argnames=('model_config'))
def forward_llama_model(params: LlamaModel, seq: Array, attn_mask: Array, *, cache_position: Array | None=None, kv_cache=None, key: Array | None=None, model_config: ModelConfig):
    assert seq.dtype == jnp.uint16
    assert attn_mask.dtype == jnp.bool_
    assert key is None or model_config.dropout_rate is not None
    seq = params.embedding[seq]
    x_rms = jnp.sqrt((seq * seq).mean(axis=-1, keepdims=True) + model_config.rms_norm_eps)
    seq = seq / x_rms * params.norm
    return seq, kv_cache


# ---- .legacy/lib/generation/_utils.py ----
# TODO: https://jax.readthedocs.io/en/latest/_autosummary/jax.lax.while_loop.html
def while_loop(cond_fun, body_fun, init_val):
    val = init_val
    while cond_fun(val):
        val = body_fun(val)
    return val


# ---- .legacy/lib/generation/top_p.py ----
class _TopPGenerationState(NamedTuple):
    key: Array
    seq: Array
    attn_mask: Array
    last_positions: Array
    last_tokens: Array
    finished: Array

class TopPGenerationConfig(NamedTuple):
    eos_token_id: int
    max_length: int
    top_p: float

def _loop_body_top_p(params: Llama, state: _TopPGenerationState, model_config: ModelConfig, top_p_config: TopPGenerationConfig) -> _TopPGenerationState:
    key, seq, attn_mask, last_positions, last_tokens, finished = state
    eos_token_id, max_length, top_p = top_p_config

    outputs = forward_llama_model(params.model, seq, attn_mask, key=None, model_config=model_config)
    logits = jax.vmap(getitem)(outputs, last_positions) @ params.lm_head  # expect: JIT401

    batch_size, vocab_size = logits.shape

    indices = jnp.broadcast_to(jnp.arange(vocab_size, dtype=jnp.uint16), (batch_size, vocab_size))
    sorted_logits, sorted_indices = jax.lax.sort_key_val(-logits, indices, is_stable=False)
    sorted_logits = -sorted_logits
    sorted_probs = nn.softmax(sorted_logits)
    cum_probs = jnp.cumsum(sorted_probs, axis=-1)
    threshold_probs = jnp.maximum(cum_probs[:, 0], top_p)  # guarantee that at least one token will not be masked
    masked_sorted_logits = jnp.where(cum_probs >= threshold_probs[:, None], -jnp.inf, sorted_logits)

    current_positions = jnp.where(finished, last_positions, last_positions + 1)

    key, subkey = rand.split(key)
    selected_indices = rand.categorical(subkey, masked_sorted_logits)
    current_tokens = jax.vmap(getitem)(sorted_indices, selected_indices)  # type: ignore[call-overload]
    current_tokens = jnp.where(finished, last_tokens, current_tokens)

    seq = jax.vmap(lambda x, y, z: x.at[y].set(z))(seq, current_positions, current_tokens)
    attn_mask = jax.vmap(lambda x, y: x.at[y].set(True))(attn_mask, current_positions)

    finished |= (current_positions == max_length - 1) | (current_tokens == eos_token_id)

    return _TopPGenerationState(key, seq, attn_mask, current_positions, current_tokens, finished)

def top_p(params: Llama, seq: Array, attn_mask: Array, *, key: Array, model_config: ModelConfig, top_p_config: TopPGenerationConfig) -> Array:
    assert 0.0 < top_p_config.top_p < 1.0

    last_positions = jnp.argmin(attn_mask, axis=-1) - 1
    last_tokens = jax.vmap(getitem)(seq, last_positions)  # type: ignore[call-overload]
    finished = jnp.all(attn_mask, axis=-1)
    loop_body = lambda state: _loop_body_top_p(params, state, model_config, top_p_config)
    state = _TopPGenerationState(key, seq, attn_mask, last_positions, last_tokens, finished)

    state = while_loop((lambda state: ~jnp.all(state.finished)), loop_body, state)
    return state.seq


if __name__ == '__main__':
    config = ModelConfig(d_model=16, vocab_size=50, rms_norm_eps=1e-6, dropout_rate=None)
    k0, k1, k2 = rand.split(rand.key(0), 3)
    params = Llama(
        LlamaModel(rand.normal(k0, (config.vocab_size, config.d_model)), jnp.ones((config.d_model,))),
        rand.normal(k1, (config.d_model, config.vocab_size)),
    )
    top_p_config = TopPGenerationConfig(eos_token_id=2, max_length=12, top_p=0.9)
    seq = jnp.zeros((2, top_p_config.max_length), jnp.uint16).at[:, :4].set(jnp.array([[1, 7, 9, 11], [1, 5, 6, 8]], jnp.uint16))
    attn_mask = jnp.zeros((2, top_p_config.max_length), jnp.bool_).at[:, :4].set(True)
    generated_seq = top_p(params, seq, attn_mask, key=k2, model_config=config, top_p_config=top_p_config)
    print(generated_seq)
