# source: https://github.com/NovaSky-AI/SkyRL/blob/4a5b60af18e6736b5bf0235e336653328ed80fb3/skyrl-tx/tx/utils/generator.py
#   (skyrl-tx's sampler for its JAX Qwen3 port: prefill, then a lax.scan decode loop with a
#   KV cache, per-request seeds, temperatures and stop tokens; fixed in PR #634, "Refactor
#   scan, so the scan function doesn't change for different calls to .generate (before, it
#   closed over local variables and the closure is a new variable in each call to
#   .generate)")
# observed on jax 0.10.2 CPU: generate runs jax.lax.scan outside any jit on scan_fn, a
#   closure it defines anew on every call, so every call of generate traces and compiles the
#   decode loop again: a second call with the same shapes and sampling parameters compiles
#   again (the eager prefill ops, by then cached, do not).
# gap: per-call-recompile
# added: round_up_seq_len from tx/utils/models.py of the same commit (called here by its bare
#   name instead of tx.utils.models.round_up_seq_len); SamplingParams from tx/tinker/types.py
#   as a plain dataclass instead of a pydantic BaseModel; TinyCausalLM, a one-layer stand-in
#   for Qwen3ForCausalLM (embedding, one attention layer writing its KV cache the way
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


def next_token_and_logprobs(
    logits: jax.Array,
    temperatures: jax.Array,
    rngs: jax.Array,  # Shape [B, key_dim]
    all_logprobs: jax.Array,
    cache_position: int,
    stop_tokens: jax.Array,
    stop_pos: jax.Array,
) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """Sample next token and compute logprobs, updating the logprobs array."""
    split_keys = jax.vmap(jax.random.split)(rngs)
    next_rngs, sample_keys = split_keys[:, 0], split_keys[:, 1]
    next_token = batched_sample_token(logits, temperatures=temperatures, sample_keys=sample_keys)

    logprobs = jax.nn.log_softmax(logits, axis=-1)
    sampled_logprobs = jnp.take_along_axis(logprobs, next_token, axis=-1)  # [batch_size, 1]
    all_logprobs = lax.dynamic_update_slice(all_logprobs, sampled_logprobs, (0, cache_position))

    # Check if sampled token is in stop tokens and update stop position
    is_stop = jnp.any(next_token == stop_tokens, axis=1, keepdims=True)
    # Only update stop_pos if not already stopped (stop_pos == -1)
    stop_pos = jnp.where((stop_pos == -1) & is_stop, cache_position, stop_pos)

    return next_rngs, next_token, all_logprobs, stop_pos


class GeneratorMixin:
    """Adds autoregressive generation with KV caching to causal language models."""

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
        outputs = self(input_ids, attention_mask=attention_mask, positions=positions, adapter_indices=adapter_indices)
        kv_cache = outputs.kv_cache.pad_to_length(max_length)

        def scan_fn(carry, _):
            kv_cache, rngs, generated_ids, attention_mask, last_positions, logits, all_logprobs, stop_pos = carry
            rngs, next_token, all_logprobs, stop_pos = next_token_and_logprobs(
                logits, temperatures, rngs, all_logprobs, kv_cache.cache_position, stop_tokens, stop_pos
            )

            # Update generated_ids and attention mask
            generated_ids = lax.dynamic_update_slice(generated_ids, next_token, (0, kv_cache.cache_position))
            attention_mask = lax.dynamic_update_slice(
                attention_mask, jnp.ones((batch_size, 1), dtype=attention_mask.dtype), (0, kv_cache.cache_position)
            )
            last_positions = last_positions + 1

            # Run decoder step
            outputs = self(
                next_token,
                attention_mask=attention_mask,
                positions=last_positions,
                kv_cache=kv_cache,
                adapter_indices=adapter_indices,
            )

            new_logits = outputs.logits[:, -1, :]
            new_carry = (
                outputs.kv_cache,
                rngs,
                generated_ids,
                attention_mask,
                last_positions,
                new_logits,
                all_logprobs,
                stop_pos,
            )
            return new_carry, None

        # Pad inputs to max_length
        pad_length = max_length - prompt_length
        attention_mask = jnp.pad(attention_mask, ((0, 0), (0, pad_length)))
        generated_ids = jnp.pad(input_ids, ((0, 0), (0, pad_length)))
        all_logprobs = jnp.zeros((batch_size, max_length), dtype=outputs.logits.dtype)
        stop_pos = jnp.full((batch_size, 1), -1, dtype=jnp.int32)

        initial_carry = (
            kv_cache,
            rngs,
            generated_ids,
            attention_mask,
            positions[:, -1:],
            outputs.logits[:, -1, :],
            all_logprobs,
            stop_pos,
        )
        (kv_cache, rngs, generated_ids, attention_mask, last_positions, logits, all_logprobs, stop_pos), _ = (
            jax.lax.scan(scan_fn, initial_carry, xs=None, length=max_new_tokens - 1)  # expect: JIT301
        )

        # Sample final token
        rngs, next_token, all_logprobs, stop_pos = next_token_and_logprobs(
            logits, temperatures, rngs, all_logprobs, kv_cache.cache_position, stop_tokens, stop_pos
        )
        generated_ids = lax.dynamic_update_slice(generated_ids, next_token, (0, kv_cache.cache_position))

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
    # observed: line 244 compiles the decode loop again in the second call of generate, the same
    #   shapes and sampling parameters: scan_fn is a new closure on every call
    assert len(compiles) > n
