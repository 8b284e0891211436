# source: https://github.com/instadeepai/flashbax/commit/989976c272cba666277efc7038c27a54df2880df
#   (flashbax/buffers/mixer.py before the fix "issue with can_sample not being jittable";
#   _batch_slicer, sample_mixer_fn, can_sample_mixer_fn and make_mixer are kept as they were,
#   docstrings shortened. flashbax is not installed: TrajectoryBufferState,
#   TrajectoryBufferSample and can_sample are flashbax's (trajectory_buffer.py at the parent
#   commit); the prioritised state/sample classes, TransitionSample, the buffer's sample
#   function and the TrajectoryBuffer container are minimal stand-ins. The __main__ block
#   follows the test the commit added: jax.jit(mixer.can_sample)(buffer_states).)
# observed on jax 0.10.2 CPU: jax.jit(mixer.can_sample) raises TracerBoolConversionError at
#   `return all(each_can_sample)`: each buffer's can_sample returns a traced bool array and
#   the builtin all() asks for its Python truth value (the fix: jnp.all(jnp.asarray(...))).
# gap: types
import functools
from typing import Callable, Generic, Sequence, TypeVar

import chex
import jax
import jax.numpy as jnp
from chex import Numeric, dataclass
from jax import Array
from jax.tree_util import tree_map

Experience = TypeVar("Experience", bound=chex.ArrayTree)


@dataclass(frozen=True)
class TrajectoryBufferState(Generic[Experience]):
    experience: Experience
    current_index: Array
    is_full: Array


@dataclass(frozen=True)
class TrajectoryBufferSample(Generic[Experience]):
    experience: Experience


@dataclass(frozen=True)
class PrioritisedTrajectoryBufferState(TrajectoryBufferState, Generic[Experience]):
    # stand-in: flashbax's also holds a SumTreeState
    priority_state: Array


@dataclass(frozen=True)
class PrioritisedTrajectoryBufferSample(TrajectoryBufferSample, Generic[Experience]):
    # stand-in
    indices: Array
    priorities: Array


@dataclass(frozen=True)
class TransitionSample(Generic[Experience]):
    # stand-in
    experience: Experience


def can_sample(
    state: TrajectoryBufferState[Experience], min_length_time_axis: int
) -> Array:
    """Indicates whether the buffer has been filled above the minimum length, such that it
    may be sampled from."""
    return state.is_full | (state.current_index >= min_length_time_axis)


def _stand_in_sample(state, rng_key, batch_size):
    # stand-in for flashbax's trajectory sample: random rows of the first batch row
    idx = jax.random.randint(rng_key, (batch_size,), 0, state.experience.shape[1])
    return TrajectoryBufferSample(experience=state.experience[0, idx])


@dataclass(frozen=True)
class TrajectoryBuffer:
    # stand-in: flashbax's buffer also holds init, add, can_sample, ...
    sample: Callable
    can_sample: Callable


# Support for Trajectory, Flat, Item buffers, and prioritised variants
sample_types = [
    TrajectoryBufferSample,
    PrioritisedTrajectoryBufferSample,
    TransitionSample,
]
SampleTypes = TypeVar(
    "SampleTypes",
    TrajectoryBufferSample,
    PrioritisedTrajectoryBufferSample,
    TransitionSample,
)

state_types = [TrajectoryBufferState, PrioritisedTrajectoryBufferState]
StateTypes = TypeVar(
    "StateTypes", TrajectoryBufferState, PrioritisedTrajectoryBufferState
)


@dataclass(frozen=True)
class Mixer:
    """Pure functions defining the mixer."""

    sample: Callable
    can_sample: Callable


def _batch_slicer(
    sample: SampleTypes,
    batch_start: int,
    batch_end: int,
) -> SampleTypes:
    """Simple utility function to slice a sample along the batch axis."""
    return tree_map(lambda x: x[batch_start:batch_end, ...], sample)


def sample_mixer_fn(
    states: Sequence[StateTypes],
    key: chex.PRNGKey,
    prop_batch_sizes: Sequence[int],
    sample_fns: Sequence[Callable[[StateTypes, chex.PRNGKey], SampleTypes]],
) -> SampleTypes:
    """Perform mixed sampling from provided buffer states, according to provided proportions."""
    keys = jax.random.split(
        key, len(states)
    )  # Split the key for each buffer sampling operation

    # We first sample from each buffer, and get a list of samples
    samples_array = tree_map(
        lambda state, sample, key_in: sample(state, key_in),
        states,
        sample_fns,
        list(keys),
        is_leaf=lambda leaf: type(leaf) in state_types,
    )

    # We then slice the samples according to the proportions
    prop_batch_samples_array = tree_map(
        lambda x, p: _batch_slicer(x, 0, p),
        samples_array,
        prop_batch_sizes,
        is_leaf=lambda leaf: type(leaf) in sample_types,
    )

    # Concatenate the samples along the batch axis
    joint_sample = tree_map(
        lambda *x: jnp.concatenate(x, axis=0),
        *prop_batch_samples_array,
    )

    return joint_sample


def can_sample_mixer_fn(
    states: Sequence[StateTypes], can_sample_fns: Sequence[Callable[[StateTypes], bool]]
) -> bool:
    """Check if all buffers can sample."""
    each_can_sample = tree_map(
        lambda state, can_sample: can_sample(state),
        states,
        can_sample_fns,
        is_leaf=lambda leaf: type(leaf) in state_types,
    )
    return all(each_can_sample)  # expect: JIT401


def make_mixer(
    buffers: Sequence,
    sample_batch_size: int,
    proportions: Sequence[Numeric],
) -> Mixer:
    """Create the mixer."""
    assert len(buffers) == len(
        proportions
    ), "Number of buffers and proportions must match"
    assert all(
        isinstance(b, type(buffers[0])) for b in buffers
    ), "All buffers must be of the same type"
    assert sample_batch_size > 0, "Sample batch size must be greater than 0"

    sample_fns = [b.sample for b in buffers]
    can_sample_fns = [b.can_sample for b in buffers]

    # Normalize proportions and calculate resulting integer batch sizes
    props_sum = sum(proportions)
    props_norm = [p / props_sum for p in proportions]
    prop_batch_sizes = [int(p * sample_batch_size) for p in props_norm]
    if sum(prop_batch_sizes) != sample_batch_size:
        # In case of rounding errors, add the remainder to the first buffer's proportion
        prop_batch_sizes[0] += sample_batch_size - sum(prop_batch_sizes)

    mixer_sample_fn = functools.partial(
        sample_mixer_fn,
        prop_batch_sizes=prop_batch_sizes,
        sample_fns=sample_fns,
    )

    mixer_can_sample_fn = functools.partial(
        can_sample_mixer_fn,
        can_sample_fns=can_sample_fns,
    )

    return Mixer(
        sample=mixer_sample_fn,
        can_sample=mixer_can_sample_fn,
    )


if __name__ == "__main__":
    buffers = [
        TrajectoryBuffer(
            sample=functools.partial(_stand_in_sample, batch_size=8),
            can_sample=functools.partial(can_sample, min_length_time_axis=2),
        )
        for _ in range(2)
    ]
    buffer_states = [
        TrajectoryBufferState(
            experience=jnp.arange(20.0).reshape(2, 10) + i,
            current_index=jnp.array(5),
            is_full=jnp.array(False),
        )
        for i in range(2)
    ]
    mixer = make_mixer(buffers, sample_batch_size=8, proportions=[1, 3])
    samples = jax.jit(mixer.sample)(buffer_states, jax.random.PRNGKey(0))
    assert samples.experience.shape == (8,)
    can_sample_now = jax.jit(mixer.can_sample)(buffer_states)
