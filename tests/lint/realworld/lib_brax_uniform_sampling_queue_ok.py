# source: https://github.com/google/brax/blob/aed6accedf312cf8079d039c597e88d09c3416aa/brax/training/replay_buffers.py
# observed on jax 0.10.2 CPU: runs clean under jit: insert_internal and sample_internal are
#   jitted once and called in a loop (one compilation each); the Python `if` statements
#   compare static shapes, `len(data)` and `len(update)` are static lengths, the buffer is
#   rolled through `jax.lax.cond` on the traced roll amount, and the sampling key is split
#   and handed back in the returned state, so successive samples differ. Kept as brax wrote
#   them: ReplayBuffer, ReplayBufferState, QueueBase, Queue and UniformSamplingQueue
#   (PmapWrapper and PjitWrapper are left out; `from jax.experimental import pjit`, which
#   only they use, is dropped). Added: brax.training.types.PRNGKey (`jnp.ndarray`) and a
#   __main__ block that, as brax's PjitWrapper does, runs the `check_can_*` methods
#   ("Do not JIT this method") eagerly and the `*_internal` methods under jax.jit.
# gap: exemption-vs-JAX

import abc
import math
from typing import Generic, Optional, Sequence, Tuple, TypeVar

import flax
import jax
from jax import flatten_util
import jax.numpy as jnp

PRNGKey = jnp.ndarray  # brax.training.types.PRNGKey

State = TypeVar('State')
Sample = TypeVar('Sample')


class ReplayBuffer(abc.ABC, Generic[State, Sample]):
  """Contains replay buffer methods."""

  @abc.abstractmethod
  def init(self, key: PRNGKey) -> State:
    """Init the replay buffer."""

  def insert(self, buffer_state: State, samples: Sample) -> State:
    """Insert data into the replay buffer."""
    self.check_can_insert(buffer_state, samples, 1)
    return self.insert_internal(buffer_state, samples)

  def sample(self, buffer_state: State) -> Tuple[State, Sample]:
    """Sample a batch of data."""
    self.check_can_sample(buffer_state, 1)
    return self.sample_internal(buffer_state)

  def check_can_insert(self, buffer_state: State, samples: Sample, shards: int):
    """Checks whether insert can be performed. Do not JIT this method."""
    pass

  def check_can_sample(self, buffer_state: State, shards: int):
    """Checks whether sampling can be performed. Do not JIT this method."""
    pass

  @abc.abstractmethod
  def size(self, buffer_state: State) -> int:
    """Total amount of elements that are sampleable."""

  @abc.abstractmethod
  def insert_internal(self, buffer_state: State, samples: Sample) -> State:
    """Insert data into the replay buffer."""

  @abc.abstractmethod
  def sample_internal(self, buffer_state: State) -> Tuple[State, Sample]:
    """Sample a batch of data."""


@flax.struct.dataclass
class ReplayBufferState:
  """Contains data related to a replay buffer."""

  data: jnp.ndarray
  insert_position: jnp.ndarray
  sample_position: jnp.ndarray
  key: PRNGKey


class QueueBase(ReplayBuffer[ReplayBufferState, Sample], Generic[Sample]):
  """Base class for limited-size FIFO reply buffers.

  Implements an `insert()` method which behaves like a limited-size queue.
  I.e. it adds samples to the end of the queue and, if necessary, removes the
  oldest samples form the queue in order to keep the maximum size within the
  specified limit.

  Derived classes must implement the `sample()` method.
  """

  def __init__(
      self,
      max_replay_size: int,
      dummy_data_sample: Sample,
      sample_batch_size: int,
  ):
    self._flatten_fn = jax.vmap(lambda x: flatten_util.ravel_pytree(x)[0])

    dummy_flatten, self._unflatten_fn = flatten_util.ravel_pytree(
        dummy_data_sample
    )
    self._unflatten_fn = jax.vmap(self._unflatten_fn)
    data_size = len(dummy_flatten)

    self._data_shape = (max_replay_size, data_size)
    self._data_dtype = dummy_flatten.dtype
    self._sample_batch_size = sample_batch_size
    self._size = 0

  def init(self, key: PRNGKey) -> ReplayBufferState:
    return ReplayBufferState(
        data=jnp.zeros(self._data_shape, self._data_dtype),
        sample_position=jnp.zeros((), jnp.int32),
        insert_position=jnp.zeros((), jnp.int32),
        key=key,
    )

  def check_can_insert(self, buffer_state, samples, shards):
    """Checks whether insert operation can be performed."""
    assert isinstance(shards, int), 'This method should not be JITed.'
    insert_size = jax.tree_util.tree_flatten(samples)[0][0].shape[0] // shards
    if self._data_shape[0] < insert_size:
      raise ValueError(
          'Trying to insert a batch of samples larger than the maximum replay'
          f' size. num_samples: {insert_size}, max replay size'
          f' {self._data_shape[0]}'
      )
    self._size = min(self._data_shape[0], self._size + insert_size)

  def insert_internal(
      self, buffer_state: ReplayBufferState, samples: Sample
  ) -> ReplayBufferState:
    """Insert data in the replay buffer.

    Args:
      buffer_state: Buffer state
      samples: Sample to insert with a leading batch size.

    Returns:
      New buffer state.
    """
    if buffer_state.data.shape != self._data_shape:
      raise ValueError(
          f'buffer_state.data.shape ({buffer_state.data.shape}) '
          f"doesn't match the expected value ({self._data_shape})"
      )

    update = self._flatten_fn(samples)
    data = buffer_state.data

    # If needed, roll the buffer to make sure there's enough space to fit
    # `update` after the current position.
    position = buffer_state.insert_position
    roll = jnp.minimum(0, len(data) - position - len(update))
    data = jax.lax.cond(
        roll, lambda: jnp.roll(data, roll, axis=0), lambda: data
    )
    position = position + roll

    # Update the buffer and the control numbers.
    data = jax.lax.dynamic_update_slice_in_dim(data, update, position, axis=0)
    position = (position + len(update)) % (len(data) + 1)
    sample_position = jnp.maximum(0, buffer_state.sample_position + roll)

    return buffer_state.replace(
        data=data,
        insert_position=position,
        sample_position=sample_position,
    )

  def sample_internal(
      self, buffer_state: ReplayBufferState
  ) -> Tuple[ReplayBufferState, Sample]:
    raise NotImplementedError(f'{self.__class__}.sample() is not implemented.')

  def size(self, buffer_state: ReplayBufferState) -> int:
    return buffer_state.insert_position - buffer_state.sample_position  # pytype: disable=bad-return-type  # jax-ndarray


class Queue(QueueBase[Sample], Generic[Sample]):
  """Implements a limited-size queue replay buffer."""

  def __init__(
      self,
      max_replay_size: int,
      dummy_data_sample: Sample,
      sample_batch_size: int,
      cyclic: bool = False,
  ):
    """Initializes the queue.

    Args:
      max_replay_size: Maximum number of elements queue can have.
      dummy_data_sample: Example record to be stored in the queue, it is used to
        derive shapes.
      sample_batch_size: How many elements sampling from the queue should return
        in a batch.
      cyclic: Should sampling from the queue behave cyclicly, ie. once recently
        inserted element was sampled, sampling starts from the beginning of the
        buffer. For example, if the current queue content is [0, 1, 2] and
        `sample_batch_size` is 2, then consecutive calls to sample will give:
        [0, 1], [2, 0], [1, 2]...
    """
    super().__init__(max_replay_size, dummy_data_sample, sample_batch_size)
    self._cyclic = cyclic

  def check_can_sample(self, buffer_state, shards):
    """Checks whether sampling can be performed. Do not JIT this method."""
    assert isinstance(shards, int), 'This method should not be JITed.'
    if self._size < self._sample_batch_size:
      raise ValueError(
          f'Trying to sample {self._sample_batch_size * shards} elements, but'
          f' only {self._size * shards} available.'
      )
    if not self._cyclic:
      self._size -= self._sample_batch_size

  def sample_internal(
      self, buffer_state: ReplayBufferState
  ) -> Tuple[ReplayBufferState, Sample]:
    """Sample a batch of data.

    Args:
      buffer_state: Buffer state

    Returns:
      New buffer state and a batch with leading dimension 'sample_batch_size'.
    """
    if buffer_state.data.shape != self._data_shape:
      raise ValueError(
          f'Data shape expected by the replay buffer ({self._data_shape}) does '
          f'not match the shape of the buffer state ({buffer_state.data.shape})'
      )

    # Note that this may be out of bound, but the operations below would still
    # work fine as they take this number modulo the buffer size.
    idx = (
        jnp.arange(self._sample_batch_size) + buffer_state.sample_position
    ) % buffer_state.insert_position

    flat_batch = jnp.take(buffer_state.data, idx, axis=0, mode='wrap')

    # Remove the sampled batch from the queue.
    sample_position = buffer_state.sample_position + self._sample_batch_size
    if self._cyclic:
      sample_position = sample_position % buffer_state.insert_position

    new_state = buffer_state.replace(sample_position=sample_position)
    return new_state, self._unflatten_fn(flat_batch)

  def size(self, buffer_state: ReplayBufferState) -> int:
    if self._cyclic:
      return buffer_state.insert_position  # pytype: disable=bad-return-type  # jax-ndarray
    else:
      return buffer_state.insert_position - buffer_state.sample_position  # pytype: disable=bad-return-type  # jax-ndarray


class UniformSamplingQueue(QueueBase[Sample], Generic[Sample]):
  """Implements an uniform sampling limited-size replay queue.

  * It behaves as a limited size queue (if buffer is full it removes the oldest
    elements when new one is inserted).
  * It supports batch insertion only (no single element)
  * It performs uniform random sampling with replacement of a batch of size
    `sample_batch_size`
  """

  def sample_internal(
      self, buffer_state: ReplayBufferState
  ) -> Tuple[ReplayBufferState, Sample]:
    if buffer_state.data.shape != self._data_shape:
      raise ValueError(
          f'Data shape expected by the replay buffer ({self._data_shape}) does '
          f'not match the shape of the buffer state ({buffer_state.data.shape})'
      )

    key, sample_key = jax.random.split(buffer_state.key)
    idx = jax.random.randint(
        sample_key,
        (self._sample_batch_size,),
        minval=buffer_state.sample_position,
        maxval=buffer_state.insert_position,
    )
    batch = jnp.take(buffer_state.data, idx, axis=0, mode='wrap')
    return buffer_state.replace(key=key), self._unflatten_fn(batch)


if __name__ == "__main__":
  import jax.monitoring

  compiles = []
  jax.monitoring.register_event_duration_secs_listener(
      lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
      if event == "/jax/core/compile/backend_compile_duration" else None
  )

  dummy_transition = {"obs": jnp.zeros((3,)), "action": jnp.zeros((1,)), "reward": jnp.zeros(())}
  buffer = UniformSamplingQueue(
      max_replay_size=20, dummy_data_sample=dummy_transition, sample_batch_size=4
  )
  insert_internal = jax.jit(buffer.insert_internal)
  sample_internal = jax.jit(buffer.sample_internal)

  buffer_state = buffer.init(jax.random.PRNGKey(0))
  batches = []
  for i in range(8):
    transitions = {
        "obs": jnp.full((6, 3), float(i)),
        "action": jnp.full((6, 1), float(i)),
        "reward": jnp.full((6,), float(i)),
    }
    buffer.check_can_insert(buffer_state, transitions, 1)
    buffer_state = insert_internal(buffer_state, transitions)
    buffer.check_can_sample(buffer_state, 1)
    buffer_state, batch = sample_internal(buffer_state)
    batches.append(batch["reward"])
    # every sampled transition is one of the transitions held in the buffer
    assert jnp.all(batch["obs"] == batch["reward"][:, None])

  # the buffer keeps the newest 20 transitions: 18 of them were inserted at step 7, 6 and 5
  assert int(buffer_state.insert_position) == 20
  kept = buffer_state.data[:, -1]
  assert sorted(set(kept.tolist())) == [4.0, 5.0, 6.0, 7.0], kept
  # the key is handed back in the state: successive samples differ
  assert not all(bool(jnp.array_equal(batches[-1], b)) for b in batches[-3:-1])
  assert compiles.count("jit(insert_internal)") == 1, compiles
  assert compiles.count("jit(sample_internal)") == 1, compiles

