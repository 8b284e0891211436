import jax
import jax.numpy as jnp


@jax.jit
def pad_to_longest(lengths, x):
    longest = lengths.max()
    return jnp.zeros((x.shape[0], longest))  # expect: JIT404


@jax.jit
def segment_totals(data, segment_ids, num_segments):
    return jax.ops.segment_sum(data, segment_ids, num_segments=num_segments)  # expect: JIT404


@jax.jit
def segment_totals_ok(data, segment_ids):
    return jax.ops.segment_sum(data, segment_ids, num_segments=8)
