# source: https://github.com/sgl-project/sglang-jax/pull/940 ("fix: advance sampler RNG each
#   decode step": "The sampler's nnx.Rngs state was captured once during initialize_jit() and
#   reused unchanged for every JIT call. This caused every decode step to use the identical
#   RNG key"); the code is the parent of the fix, b54fa0e9694f674cdaa84faa8327060b7b32a477:
#   python/sgl_jax/srt/model_executor/model_runner.py (initialize_jit's sampler part and
#   sample) and python/sgl_jax/srt/layers/sampler.py (Sampler.__init__, _greedy_sampling,
#   the start of _regular_sampling and the key and branch of __call__)
# observed on jax 0.10.2 CPU (flax 0.12.8): initialize_jit splits the sampler once and binds
#   its state leaves into `partial(jitted_sampler, ...)`; inside the jit nnx.merge rebuilds
#   the sampler from those leaves and `self.rngs.params()` advances only that traced copy,
#   so every decode step splits the same key: two steps with temperature 1.0 sample the same
#   tokens from the same logits.
#   Kept verbatim: Sampler.__init__, _greedy_sampling, the `_, rng = jax.random.split(
#   self.rngs.params())` and lax.cond of Sampler.__call__, the sampler half of
#   ModelRunner.initialize_jit (jitted_sampler and its partial) and ModelRunner.sample.
#   Stand-ins (sglang-jax is not installed): LogitsProcessorOutput and SamplingMetadata hold
#   only the fields used; _regular_sampling divides by the temperatures as the original
#   does and then draws with jax.random.categorical instead of the top-k/top-p/min-p
#   kernels; the penalty and vocab-mask conds, logprob post-processing, the model half of
#   initialize_jit and the TPU log-recorder options are left out; ModelRunner.__init__
#   builds only the sampler on a one-device mesh. Added: the __main__ block.
# gap: other
from functools import partial

import flax
import jax
from flax import nnx
from jax import lax
from jax import numpy as jnp
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P


@flax.struct.dataclass
class LogitsProcessorOutput:  # stand-in: the field the sampler reads
    next_token_logits: jax.Array


@flax.struct.dataclass
class SamplingMetadata:  # stand-in: the fields the kept code reads
    temperatures: jax.Array
    is_all_greedy: jax.Array


class Sampler(nnx.Module):
    def __init__(self, rngs: nnx.Rngs = None, mesh: Mesh = None):
        self.rngs = rngs
        self.mesh = mesh

    def _greedy_sampling(self, operands):
        """Greedy sampling branch"""
        logits, _, _ = operands
        batch_next_token_ids = jnp.argmax(logits, -1).flatten()
        logprobs = jax.nn.log_softmax(logits, axis=-1)
        return batch_next_token_ids, logprobs

    def _regular_sampling(self, operands):
        """Regular sampling branch"""
        logits, sampling_metadata, rng, use_sort_for_toppk_minp = operands

        logits = lax.with_sharding_constraint(logits, NamedSharding(self.mesh, P(None, None)))

        # Validate broadcast compatibility for temperature division
        logits_batch_size = logits.shape[0]
        temperatures_shape = sampling_metadata.temperatures.shape

        # Temperatures should be (batch_size, 1) for proper broadcasting
        assert (
            temperatures_shape[0] == logits_batch_size
        ), f"Temperature batch size {temperatures_shape[0]} doesn't match logits batch size {logits_batch_size}"

        # Post process logits
        processed_logits = jnp.divide(logits, sampling_metadata.temperatures).astype(logits.dtype)

        # stand-in for the top-k/top-p/min-p sampling kernels
        batch_next_token_ids = jax.random.categorical(rng, processed_logits, axis=-1)
        return batch_next_token_ids, jax.nn.log_softmax(processed_logits, axis=-1)

    def __call__(
        self,
        logits_output: LogitsProcessorOutput,
        sampling_metadata: SamplingMetadata,
        use_sort_for_toppk_minp: bool,
    ):
        logits = logits_output.next_token_logits

        _, rng = jax.random.split(self.rngs.params())  # expect: JIT502
        operands = (logits, sampling_metadata, rng)
        regular_fn = lambda op: self._regular_sampling((*op, use_sort_for_toppk_minp))
        batch_next_token_ids, logprobs = lax.cond(
            sampling_metadata.is_all_greedy,
            self._greedy_sampling,
            regular_fn,
            operands,
        )
        return batch_next_token_ids, logprobs, None


class ModelRunner:
    def __init__(self, random_seed):
        # stand-in: only the sampler part of ModelRunner.__init__
        self.mesh = jax.make_mesh((1,), ("tensor",))
        self.use_sort_for_toppk_minp = False
        self.sampler = Sampler(nnx.Rngs(random_seed), mesh=self.mesh)
        self.initialize_jit()

    def initialize_jit(self):
        sampler_def, sampler_state = nnx.split(self.sampler)
        sampler_state_leaves, sampler_state_def = jax.tree_util.tree_flatten(sampler_state)

        @partial(jax.jit, static_argnames=["sampler_state_def", "use_sort_for_toppk_minp"])
        def jitted_sampler(
            sampler_def,
            sampler_state_def,
            sampler_state_leaves,
            use_sort_for_toppk_minp,
            *args,
        ):

            model_state = jax.tree_util.tree_unflatten(sampler_state_def, sampler_state_leaves)
            sampler = nnx.merge(sampler_def, model_state)
            return sampler(*args, use_sort_for_toppk_minp=use_sort_for_toppk_minp)

        self.jitted_sampler = partial(
            jitted_sampler,
            sampler_def,
            sampler_state_def,
            sampler_state_leaves,
            self.use_sort_for_toppk_minp,
        )

    def sample(
        self,
        logits_output: LogitsProcessorOutput,
        sampling_metadata: SamplingMetadata,
    ) -> jax.Array:
        """Sample and compute logprobs and update logits_output."""
        # Penalty application has been moved to the Sampler for better JIT performance
        return self.jitted_sampler(
            logits_output,
            sampling_metadata,
        )


if __name__ == "__main__":
    runner = ModelRunner(random_seed=42)
    logits = jnp.zeros((4, 1000))  # uniform logits: any token is equally likely
    metadata = SamplingMetadata(temperatures=jnp.ones((4, 1)), is_all_greedy=jnp.array(False))
    step_1, _, _ = runner.sample(LogitsProcessorOutput(logits), metadata)
    step_2, _, _ = runner.sample(LogitsProcessorOutput(logits), metadata)
    # observed: line 87 splits the same captured rng state on every decode step: two steps
    #   draw the same four tokens out of 1000 equally likely ones
    assert jnp.array_equal(step_1, step_2), (step_1, step_2)
