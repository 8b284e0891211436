# source: https://github.com/vllm-project/tpu-inference/pull/1189
#   (tpu_inference/runner/tpu_runner.py and tpu_inference/layers/jax/sample/sampling.py at
#   ed1e12964^, the parent of the fix "[Sampling][Bugfix] Use different rng per step":
#   "We have been mistakenly using the same rng at each step. The result is that with
#   temperature sampling, there is no variation across multiple samples.")
# observed on jax 0.10.2 CPU: the runner draws its sampling key once in load_model and
#   _sample_from_logits passes self.rng_params_for_sampling, never split, to the jitted
#   `sample` at every decoding step, so two steps over the same uniform logits sample the
#   same tokens (line 139, and line 148 for the bonus tokens of speculative decoding); with
#   speculative decoding the same key is also handed to the rejection sampler (line 162; the call starts at line 155, tolerated)
#   after `sample` consumed it. Kept verbatim: `sample` (with _SAMPLING_EPS), the
#   TPUSupportedSamplingMetadata dataclass and the sampling part of _sample_from_logits
#   (the logprobs and request bookkeeping after it left out), and the key creation of
#   load_model. Stand-ins (tpu_inference, vllm and torch are not installed): topk_mask and
#   topp_mask as plain sorts, ShardingAxisName with one ATTN_DATA axis, a one-device mesh,
#   _select_from_array_fn as a jitted gather (the shard_map left out), an input batch of
#   plain values, from_input_batch reduced to building the dataclass, and a
#   rejection sampler that records its key and draws its acceptance uniforms with it; the
#   speculative branch returns its bonus tokens as well so that they can be compared.
# gap: other
import functools
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Optional

from flax import nnx
import jax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec
from jax.sharding import PartitionSpec as P
import numpy as np

_SAMPLING_EPS = 1e-5


class ShardingAxisName:
    # stand-in: the one mesh axis the sampler shards over
    ATTN_DATA = "data"


def topk_mask(x, k, replace_val):
    # stand-in for tpu_inference.layers.common.binary_search.topk_mask
    kth = jnp.take_along_axis(jnp.sort(x, axis=-1)[..., ::-1],
                              jnp.maximum(k, 1)[:, None] - 1, axis=-1)
    return jnp.where((k[:, None] > 0) & (x < kth), replace_val, x)


def topp_mask(logits, p, replace_val):
    # stand-in for tpu_inference.layers.common.binary_search.topp_mask
    sorted_desc = jnp.sort(logits, axis=-1)[..., ::-1]
    cum = jnp.cumsum(jax.nn.softmax(sorted_desc, axis=-1), axis=-1)
    cutoff_idx = jnp.sum(cum < p[:, None], axis=-1, keepdims=True)
    cutoff = jnp.take_along_axis(sorted_desc, cutoff_idx, axis=-1)
    return jnp.where(logits < cutoff, replace_val, logits)


@functools.partial(
    jax.tree_util.register_dataclass,
    data_fields=[
        "temperature",
        "top_k",
        "top_p",
    ],
    meta_fields=["do_sampling", "logprobs"],
)
@dataclass
class TPUSupportedSamplingMetadata:
    temperature: Optional[jnp.ndarray] = None
    top_k: Optional[jnp.ndarray] = None
    top_p: Optional[jnp.ndarray] = None
    do_sampling: bool = False
    logprobs: bool = False

    @classmethod
    def from_input_batch(cls, mesh, input_batch, padded_num_reqs, sharding=None):
        # stand-in: the batch already holds padded device values
        return cls(temperature=input_batch.temperature, top_k=input_batch.top_k,
                   top_p=input_batch.top_p, do_sampling=not input_batch.all_greedy,
                   logprobs=False)


@functools.partial(
    jax.jit,
    static_argnames=["mesh"],
)
def sample(
    rng: jax.Array,
    mesh: Mesh,
    logits: jax.Array,
    tpu_sampling_metadata: TPUSupportedSamplingMetadata,
) -> jax.Array:
    # (B, vocab_size)
    if tpu_sampling_metadata.do_sampling:
        # Unshard the logits explicity to avoid latency increase.
        logits = jax.lax.with_sharding_constraint(
            logits, NamedSharding(mesh, P(ShardingAxisName.ATTN_DATA, None)))
    greedy_sampled = jnp.argmax(logits, axis=-1)
    if not tpu_sampling_metadata.do_sampling:
        return greedy_sampled

    logits = logits.astype(jnp.float32)
    logits = topk_mask(logits, tpu_sampling_metadata.top_k, replace_val=-1e12)
    logits = topp_mask(logits, tpu_sampling_metadata.top_p, replace_val=-1e12)

    temperatures = tpu_sampling_metadata.temperature.astype(logits.dtype)
    temperatures = jnp.expand_dims(temperatures, axis=-1)
    logits /= temperatures

    # (batch_size,)
    next_tokens = jax.random.categorical(rng, logits)
    # Note: avoid using the sample result when temperature < _SAMPLING_EPS
    # If temperature < 0, logits /= temperatures will flip the result, causing error.
    return jnp.where(tpu_sampling_metadata.temperature < _SAMPLING_EPS,
                     greedy_sampled, next_tokens)


class TPUModelRunner:

    def load_model(self, seed):
        self.mesh = Mesh(np.array(jax.devices()[:1]), (ShardingAxisName.ATTN_DATA,))
        self.dp_size = 1
        self._select_from_array_fn = jax.jit(lambda array, idx: array[idx])  # stand-in
        self.rejection_sampler = RecordingRejectionSampler()  # stand-in
        self.rng_params_for_sampling = nnx.Rngs(
            jax.random.key(seed)).params()

    def _sample_from_logits(self, input_batch, logits, spec_decode_metadata,
                            padded_num_reqs):
        sharding = None
        if self.dp_size > 1:
            sharding = NamedSharding(self.mesh,
                                     PartitionSpec(ShardingAxisName.ATTN_DATA))

        tpu_sampling_metadata = TPUSupportedSamplingMetadata.from_input_batch(
            self.mesh, input_batch, padded_num_reqs, sharding=sharding)
        if spec_decode_metadata is None:
            next_tokens = sample(
                self.rng_params_for_sampling,  # expect: JIT502
                self.mesh,
                logits,
                tpu_sampling_metadata,
            )
        else:
            bonus_logits = self._select_from_array_fn(
                logits, spec_decode_metadata.bonus_logits_indices)
            bonus_token_ids = sample(
                self.rng_params_for_sampling,  # expect: JIT502
                self.mesh,
                bonus_logits,
                tpu_sampling_metadata,
            )
            target_logits = self._select_from_array_fn(
                logits, spec_decode_metadata.target_logits_indices)
            next_tokens = self.rejection_sampler(  # tolerate: JIT502
                draft_token_ids=spec_decode_metadata.draft_token_ids,
                num_draft_tokens=spec_decode_metadata.draft_lengths,
                draft_probs=None,
                target_logits=target_logits,
                bonus_token_ids=bonus_token_ids,
                sampling_metadata=tpu_sampling_metadata,
                key=self.rng_params_for_sampling,  # expect: JIT502
            )
            return next_tokens, bonus_token_ids
        return next_tokens


class RecordingRejectionSampler:
    # stand-in for tpu_inference's RejectionSampler: keeps the key it was given
    def __init__(self):
        self.keys = []

    def __call__(self, *, draft_token_ids, num_draft_tokens, draft_probs, target_logits,
                 bonus_token_ids, sampling_metadata, key):
        self.keys.append(key)
        uniforms = jax.random.uniform(key, draft_token_ids.shape)
        return jnp.where(uniforms < 0.5, draft_token_ids, bonus_token_ids[0])


if __name__ == "__main__":
    batch, vocab = 8, 1000
    input_batch = SimpleNamespace(temperature=jnp.ones(batch), top_k=jnp.zeros(batch, jnp.int32),
                                  top_p=jnp.ones(batch), all_greedy=False)
    logits = jnp.zeros((batch, vocab))
    runner = TPUModelRunner()
    runner.load_model(seed=0)
    step1 = runner._sample_from_logits(input_batch, logits, None, batch)
    step2 = runner._sample_from_logits(input_batch, logits, None, batch)
    # observed: line 139 samples the same tokens at every step from uniform logits
    assert jnp.array_equal(step1, step2)
    spec = SimpleNamespace(bonus_logits_indices=jnp.arange(batch),
                           target_logits_indices=jnp.arange(batch),
                           draft_token_ids=jnp.arange(batch), draft_lengths=jnp.ones(batch, jnp.int32))
    _, bonus1 = runner._sample_from_logits(input_batch, logits, spec, batch)
    _, bonus2 = runner._sample_from_logits(input_batch, logits, spec, batch)
    # observed: line 148 samples the same bonus tokens at every step
    assert jnp.array_equal(bonus1, bonus2)
    # observed: line 162 hands the rejection sampler the key `sample` consumed for the bonus tokens
    rejection_key = runner.rejection_sampler.keys[0]
    assert jnp.array_equal(jax.random.key_data(rejection_key),
                           jax.random.key_data(runner.rng_params_for_sampling))
    assert jnp.array_equal(sample(rejection_key, runner.mesh, logits, TPUSupportedSamplingMetadata.from_input_batch(runner.mesh, input_batch, batch)), bonus1)  # tolerate: JIT502
