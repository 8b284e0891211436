# source: https://github.com/hr0nix/omega/blob/d99cd8f935f4ad9c7a21ef1fd93a8b23fbdf745d/omega/training/trajectory.py
#   (TrajectoryBatch before commit bad3464 "Fix the bug that caused re-jitting trajectory
#   buffer update func.", which moves _update_buffers to a module-level jax.jit function
#   and the bounds check `0 <= transition_index < self.num_transitions` out of it, into
#   the unjitted add_transition_batch)
# observed on jax 0.10.2 CPU: the trainer passes the transition index as a Python int, but
#   _update_buffers is jitted with only `self` static, so transition_index is a tracer and
#   the chained comparison in the assert raises TracerBoolConversionError.
#   Kept verbatim but for the removed jax.ops API: `jax.ops.index_update(x=buffer,
#   idx=jax.ops.index[:, transition_index, ...], y=value)` is written in its current
#   spelling, `buffer.at[:, transition_index, ...].set(value)`. Added: the __main__ block
#   with one transition batch of two trajectories, as the trainer's rollout loop adds them.
# gap: other
from functools import partial

import jax.numpy as jnp
import flax
import jax.ops


class TrajectoryBatch(object):
    def __init__(self, num_trajectories, num_transitions):
        self._num_trajectories = num_trajectories
        self._num_transitions = num_transitions

        self._actions = self._create_buffer(num_trajectories, num_transitions, element_shape=(), dtype=jnp.int32)
        self._rewards = self._create_buffer(num_trajectories, num_transitions, element_shape=(), dtype=jnp.float32)
        self._done = self._create_buffer(num_trajectories, num_transitions, element_shape=(), dtype=jnp.bool_)

        self._observation_buffers = None
        self._metadata_buffers = None

    @property
    def num_trajectories(self):
        return self._num_trajectories

    @property
    def num_transitions(self):
        return self._num_transitions

    def _create_buffer(self, num_trajectories, num_transitions, element_shape, dtype):
        return jnp.zeros(shape=(num_trajectories, num_transitions) + element_shape, dtype=dtype)

    def _create_buffers_for_tensor_bag(self, tensor_bag):
        return {
            key: self._create_buffer(self._num_trajectories, self._num_transitions, value.shape[1:], value.dtype)
            for key, value in tensor_bag.items()
        }

    def add_transition_batch(self, transition_index, observation, action, reward, done, metadata):
        if self._observation_buffers is None:
            self._observation_buffers = self._create_buffers_for_tensor_bag(observation)
        if self._metadata_buffers is None:
            self._metadata_buffers = self._create_buffers_for_tensor_bag(metadata)

        (
            self._actions, self._rewards, self._done,
            self._observation_buffers, self._metadata_buffers,
        ) = self._update_buffers(
            transition_index, observation, action, reward, done, metadata,
            self._actions, self._rewards, self._done,
            self._observation_buffers, self._metadata_buffers,
        )

    @partial(jax.jit, static_argnums=(0,))
    def _update_buffers(self, transition_index, observation, action, reward, done, metadata,
            action_buffer, rewards_buffer, done_buffer, observation_buffers, metadata_buffers):

        def _add_transition_batch(buffer, transition_index, value):
            value = jnp.asarray(value, dtype=buffer.dtype)
            assert len(value.shape) == len(buffer.shape) - 1
            assert value.shape[0] == buffer.shape[0]
            assert value.shape[1:] == buffer.shape[2:], 'Provided value has an unexpected shape'
            assert 0 <= transition_index < buffer.shape[1], 'Provided transition index is out of bounds'  # expect: JIT103

            return buffer.at[:, transition_index, ...].set(value)

        def _add_transition_batch_from_tensor_bag(buffers, transition_index, tensor_bag):
            assert set(buffers.keys()) == set(tensor_bag.keys()), 'An unexpected set of keys has been provided'

            return {
                key: _add_transition_batch(buffer, transition_index, tensor_bag[key])
                for key, buffer in buffers.items()
            }

        return (
            _add_transition_batch(action_buffer, transition_index, action),
            _add_transition_batch(rewards_buffer, transition_index, reward),
            _add_transition_batch(done_buffer, transition_index, done),
            _add_transition_batch_from_tensor_bag(observation_buffers, transition_index, observation),
            _add_transition_batch_from_tensor_bag(metadata_buffers, transition_index, metadata),
        )

    def to_dict(self):
        return flax.core.frozen_dict.FrozenDict({
            'actions': self._actions,
            'rewards': self._rewards,
            'done': self._done,
            'observations': self._observation_buffers,
            'metadata': self._metadata_buffers,
        })


if __name__ == "__main__":
    trajectory_batch = TrajectoryBatch(num_trajectories=2, num_transitions=4)
    observation = {'glyphs': jnp.zeros((2, 21, 79), dtype=jnp.int32)}
    metadata = {'state_values': jnp.zeros((2,)), 'log_action_probs': jnp.zeros((2, 8))}
    trajectory_batch.add_transition_batch(
        0, observation, jnp.array([1, 2]), jnp.array([0.0, 1.0]), jnp.array([False, False]), metadata)
