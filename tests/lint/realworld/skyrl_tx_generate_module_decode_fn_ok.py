# source: https://github.com/NovaSky-AI/SkyRL/blob/ee5feb6ee3ae258344f11c6743db0bc38ef2e9db/skyrl-tx/tx/utils/generator.py
#   (the fix of PR #634 for skyrl-tx's sampler: the decode step is the module-level decode_fn
#   over a registered DecodeState that carries the model, and prefill is a jitted staticmethod,
#   so repeated calls of generate reuse the compiled scan and prefill)
# observed on jax 0.10.2 CPU: runs clean; a second call of generate with the same shapes and
#   sampling parameters compiles nothing.
# gap: per-call-recompile
# added: round_up_seq_len from tx/utils/models.py of the same commit (called here by its bare
#   name instead of tx.utils.models.round_up_seq_len); SamplingParams from tx/tinker/types.py
#   as a plain dataclass instead of a pydantic BaseModel; TinyCausalLM, a one-layer nnx
#   stand-in for Qwen3ForCausalLM (embedding, one attention layer writing its KV cache the way
#   Qwen3Attention does, tied head) with CausalLMOutput from tx/models/outputs.py cut to its two fields; the __main__ block.
from __future__ import annotations
from dataclasses import dataclass
from typing import Sequence

import jax
from jax import lax
import jax.numpy as jnp
from flax import nnx


def round_up_seq_len(seq_len: int) -> int:
    """
    Rounds a sequence length up to roughly two significant binary digits.
    We do this to pad sequences, so the Jax JIT compiler needs to
    compile fewer different shapes.
    """
    if seq_len <= 32:
        return 32

    # Find the position of the most significant bit.
    msb_pos = seq_len.bit_length() - 1
    # Create a mask for the two most significant bits.
    mask = (1 << msb_pos) | (1 << (msb_pos - 1))
    # Round down to the nearest value with at most two significant bits.
    result = seq_len & mask

    # If we rounded down, round up to the next bucket boundary.
    if result < seq_len:
        result += 1 << (msb_pos - 1)

    return result


@dataclass
class SamplingParams:
    temperature: float
    max_tokens: int
    seed: int
    stop: Sequence[int] | None = None


@dataclass
class SamplingParams:
    temperature: float
    max_tokens: int
    seed: int
    stop: Sequence[int] | None = None


@jax.tree_util.register_dataclass
@dataclass
class KVCache:
    """Key-value cache for all layers, each entry in the list corresponds to one layer."""

    keys: list[jax.Array]
    values: list[jax.Array]
    cache_position: int

    def pad_to_length(self, max_length: int) -> KVCache:
        """Pad KV cache to a specified maximum length.

        Args:
            max_length: Target length to pad the cache to.

        Returns:
            New KVCache with padded keys and values.
        """
        # k and v have shape [B, T, num_heads, head_dim]
        cache_pad_length = max_length - self.keys[0].shape[1]
        pad_spec = ((0, 0), (0, cache_pad_length), (0, 0), (0, 0))
        return KVCache(
            keys=[jnp.pad(k, pad_spec) for k in self.keys],
            values=[jnp.pad(v, pad_spec) for v in self.values],
            cache_position=self.cache_position,
        )


@jax.tree_util.register_dataclass
@dataclass
class DecodeState:
    """State of the decode loop."""

    # Constant throughout decode loop:
    model: nnx.Module
    temperatures: jax.Array
    stop_tokens: jax.Array
    adapter_indices: jax.Array

    # Updated each iteration:
    kv_cache: KVCache
    rngs: jax.Array  # of shape [B, key_dim]
    generated_ids: jax.Array
    attention_mask: jax.Array
    last_positions: jax.Array
    logits: jax.Array
    all_logprobs: jax.Array
    stop_pos: jax.Array


@dataclass
class GenerateOutput:
    """Result from autoregressive text generation.

    Attributes:
        generated_ids: List of token ID lists, one for each request (excluding the prompt).
        stop_reasons: Reason for stopping generation for each sequence ('stop' or 'length').
        logprobs: Log probabilities for each sampled token.
    """

    generated_ids: list[list[int]]
    stop_reasons: list[str]
    logprobs: list[list[float]]


def batched_sample_token(logits: jax.Array, *, temperatures: jax.Array, sample_keys: jax.Array) -> jax.Array:
    """Sample next token per-example using a per-example PRNGKey."""
    temperatures = temperatures[:, None]
    zero_temp_mask = temperatures == 0.0
    scaled_logits = logits / jnp.where(zero_temp_mask, 1.0, temperatures)
    # Draw one sample per example
    sampled = jax.vmap(lambda key, logit: jax.random.categorical(key, logit, axis=-1))(sample_keys, scaled_logits)
    greedy = jnp.argmax(logits, axis=-1)
    next_token = jnp.where(zero_temp_mask, greedy[:, None], sampled[:, None])
    return next_token


def compute_positions(attention_mask: jax.Array) -> jax.Array:
    """Compute positions from attention mask.

    Positions start at 0 from the first non-zero value in the attention mask
    and increment sequentially.
    """
    first_token_idx = jnp.argmax(attention_mask, axis=1, keepdims=True)
    return jnp.arange(attention_mask.shape[1])[None, :] - first_token_idx


def next_token_and_logprobs(s: DecodeState) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """Sample next token and compute logprobs, updating the logprobs array."""
    split_keys = jax.vmap(jax.random.split)(s.rngs)
    next_rngs, sample_keys = split_keys[:, 0], split_keys[:, 1]
    next_token = batched_sample_token(s.logits, temperatures=s.temperatures, sample_keys=sample_keys)

    logprobs = jax.nn.log_softmax(s.logits, axis=-1)
    sampled_logprobs = jnp.take_along_axis(logprobs, next_token, axis=-1)  # [batch_size, 1]
    all_logprobs = lax.dynamic_update_slice(s.all_logprobs, sampled_logprobs, (0, s.kv_cache.cache_position))

    # Check if sampled token is in stop tokens and update stop position
    is_stop = jnp.any(next_token == s.stop_tokens, axis=1, keepdims=True)
    # Only update stop_pos if not already stopped (stop_pos == -1)
    stop_pos = jnp.where((s.stop_pos == -1) & is_stop, s.kv_cache.cache_position, s.stop_pos)

    return next_rngs, next_token, all_logprobs, stop_pos


def decode_fn(s: DecodeState, _) -> tuple[DecodeState, None]:
    """Decode one token step for use with jax.lax.scan."""
    rngs, next_token, all_logprobs, stop_pos = next_token_and_logprobs(s)

    generated_ids = lax.dynamic_update_slice(s.generated_ids, next_token, (0, s.kv_cache.cache_position))
    attention_mask = lax.dynamic_update_slice(
        s.attention_mask,
        jnp.ones((s.generated_ids.shape[0], 1), dtype=s.attention_mask.dtype),
        (0, s.kv_cache.cache_position),
    )

    outputs = s.model(
        next_token,
        attention_mask=attention_mask,
        positions=s.last_positions + 1,
        kv_cache=s.kv_cache,
        adapter_indices=s.adapter_indices,
    )
    next_state = DecodeState(
        model=s.model,
        temperatures=s.temperatures,
        stop_tokens=s.stop_tokens,
        adapter_indices=s.adapter_indices,
        kv_cache=outputs.kv_cache,
        rngs=rngs,
        generated_ids=generated_ids,
        attention_mask=attention_mask,
        last_positions=s.last_positions + 1,
        logits=outputs.logits[:, -1, :],
        all_logprobs=all_logprobs,
        stop_pos=stop_pos,
    )
    return next_state, None


class GeneratorMixin:
    """Adds autoregressive generation with KV caching to causal language models."""

    @staticmethod
    @jax.jit
    def _prefill_fn(
        model, input_ids: jax.Array, attention_mask: jax.Array, positions: jax.Array, adapter_indices: jax.Array | None
    ):
        return model(input_ids, attention_mask=attention_mask, positions=positions, adapter_indices=adapter_indices)

    def generate(
        self,
        input_ids: jax.Array,
        attention_mask: jax.Array,
        *,
        sampling_params: list[SamplingParams],
        adapter_indices: jax.Array | None = None,
    ) -> GenerateOutput:
        """Generate text autoregressively with KV caching.

        Args:
            max_length: Maximum sequence length for fixed-size buffers (default: 512).

        Returns:
            GenerateOutput containing generated_ids, stop_reasons, and optionally logprobs.
        """
        batch_size, prompt_length = input_ids.shape
        assert len(sampling_params) == batch_size
        max_new_tokens = max(sampling_param.max_tokens for sampling_param in sampling_params)
        max_length = round_up_seq_len(prompt_length + max_new_tokens)
        temperatures = jnp.array([sampling_param.temperature for sampling_param in sampling_params])

        # One PRNGKey per provided seed. If the caller supplies identical seeds, the corresponding
        # per-request streams will be identical.
        seeds = [sampling_param.seed for sampling_param in sampling_params]
        rngs = jax.vmap(jax.random.PRNGKey)(jnp.array(seeds))

        # Extract stop tokens and pad to same length
        max_stop_tokens = max(len(sp.stop) if sp.stop else 0 for sp in sampling_params)
        stop_tokens = jnp.full((batch_size, max(1, max_stop_tokens)), -1, dtype=jnp.int32)
        for i, sp in enumerate(sampling_params):
            if sp.stop:
                stop_tokens = stop_tokens.at[i, : len(sp.stop)].set(jnp.array(sp.stop))

        # Prefill: process full prompt
        positions = compute_positions(attention_mask)
        outputs = self._prefill_fn(self, input_ids, attention_mask, positions, adapter_indices)
        kv_cache = outputs.kv_cache.pad_to_length(max_length)

        # Pad inputs to max_length
        pad_length = max_length - prompt_length
        attention_mask = jnp.pad(attention_mask, ((0, 0), (0, pad_length)))
        generated_ids = jnp.pad(input_ids, ((0, 0), (0, pad_length)))
        all_logprobs = jnp.zeros((batch_size, max_length), dtype=outputs.logits.dtype)
        stop_pos = jnp.full((batch_size, 1), -1, dtype=jnp.int32)

        initial_state = DecodeState(
            model=self,
            temperatures=temperatures,
            stop_tokens=stop_tokens,
            adapter_indices=adapter_indices,
            kv_cache=kv_cache,
            rngs=rngs,
            generated_ids=generated_ids,
            attention_mask=attention_mask,
            last_positions=positions[:, -1:],
            logits=outputs.logits[:, -1, :],
            all_logprobs=all_logprobs,
            stop_pos=stop_pos,
        )
        final_state, _ = jax.lax.scan(decode_fn, initial_state, xs=None, length=max_new_tokens - 1)

        # Sample final token
        rngs, next_token, all_logprobs, stop_pos = next_token_and_logprobs(final_state)
        generated_ids = lax.dynamic_update_slice(
            final_state.generated_ids, next_token, (0, final_state.kv_cache.cache_position)
        )

        # Compute end position for each sequence: stop_pos + 1 if stopped, else prompt_length + max_tokens
        end_positions = jnp.where(
            stop_pos[:, 0] >= 0,
            stop_pos[:, 0] + 1,
            prompt_length + jnp.array([sp.max_tokens for sp in sampling_params]),
        )

        return GenerateOutput(
            generated_ids=[generated_ids[i, prompt_length : end_positions[i]].tolist() for i in range(batch_size)],
            stop_reasons=["stop" if stop_pos[i, 0] >= 0 else "length" for i in range(batch_size)],
            logprobs=[all_logprobs[i, prompt_length : end_positions[i]].tolist() for i in range(batch_size)],
        )


@jax.tree_util.register_dataclass
@dataclass
class CausalLMOutput:
    logits: jax.Array
    kv_cache: KVCache


class TinyCausalLM(nnx.Module, GeneratorMixin):
    def __init__(self, vocab_size: int = 16, dim: int = 8, *, rngs: nnx.Rngs) -> None:
        self.embed = nnx.Embed(vocab_size, dim, rngs=rngs)
        self.qkv = nnx.Linear(dim, 3 * dim, rngs=rngs)

    def __call__(self, input_ids, attention_mask, positions=None, adapter_indices=None, kv_cache=None):
        x = self.embed(input_ids)
        B, T, D = x.shape
        q, k, v = jnp.split(self.qkv(x).reshape(B, T, 1, 3 * D), 3, axis=-1)
        if kv_cache is not None:
            k = lax.dynamic_update_slice(kv_cache.keys[0], k, (0, kv_cache.cache_position, 0, 0))
            v = lax.dynamic_update_slice(kv_cache.values[0], v, (0, kv_cache.cache_position, 0, 0))
        h = jax.nn.dot_product_attention(
            q, k, v, mask=attention_mask[:, None, None, :].astype(bool), is_causal=kv_cache is None
        ).reshape(B, T, D)
        new_cache_position = kv_cache.cache_position + 1 if kv_cache is not None else input_ids.shape[1]
        return CausalLMOutput(
            logits=self.embed.attend(h),
            kv_cache=KVCache(keys=[k], values=[v], cache_position=new_cache_position),
        )


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: compiles.append(event) if event == "/jax/core/compile/backend_compile_duration" else None
    )

    model = TinyCausalLM(rngs=nnx.Rngs(0))
    input_ids = jnp.array([[3, 5, 7, 2], [0, 0, 4, 9]], dtype=jnp.int32)
    attention_mask = jnp.array([[1, 1, 1, 1], [0, 0, 1, 1]], dtype=jnp.int32)
    params = [SamplingParams(temperature=1.0, max_tokens=6, seed=1), SamplingParams(temperature=0.0, max_tokens=6, seed=2, stop=[11])]

    first = model.generate(input_ids, attention_mask, sampling_params=params)
    n = len(compiles)
    second = model.generate(input_ids, attention_mask, sampling_params=params)
    assert second.generated_ids == first.generated_ids
    assert len(compiles) == n, compiles[n:]
    assert all(len(ids) == 6 for ids in first.generated_ids[:1])
