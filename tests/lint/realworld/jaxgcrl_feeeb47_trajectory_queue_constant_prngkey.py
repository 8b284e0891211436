# source: https://github.com/MichalBortkiewicz/JaxGCRL/blob/feeeb47443f794e36fb31fb9e8773169fd5023bb/crl/train.py
# observed on jax 0.10.2 CPU: TrajectoryUniformSamplingQueue.flatten_fn (jitted, vmapped over the
#   sampled trajectories) draws the goal indices and the transition to take from
#   random.PRNGKey(0): every trajectory of every batch, on every call, takes the same transition
#   index and the same goal indices (12 samples over 3 calls: one transition index, one goal
#   index). Fixed by the author in a759206 ("fix: goal_index key in sampling (previously
#   constant)") and caae6e7 ("fix: sampling_transition key previously was also constant").
# gap: other
# Kept: the replay queue class and CRL_TRAINING flag as written (crl/train.py lines 27-118).
#   Left out: the rest of train.py (training state, SAC/CRL updates, train()), the absl/brax
#   imports and the unused Metrics/Transition/InferenceParams aliases. Added: stand-ins for
#   brax's Transition, QueueBase and buffer state, a small buffer of 8 trajectories, and the
#   __main__ block.
from collections import namedtuple
from typing import Any, Callable, Optional, Tuple, Union, Generic, NamedTuple, TypeVar

import flax
import jax
import jax.numpy as jnp
from jax import random


# ---- stand-ins for brax.training.types / brax.training.replay_buffers ----
PRNGKey = jax.Array
Sample = TypeVar("Sample")


class Transition(NamedTuple):
    observation: Any
    action: Any
    reward: Any
    discount: Any
    next_observation: Any
    extras: Any = ()


@flax.struct.dataclass
class _BufferState:
    data: jax.Array
    insert_position: jax.Array
    sample_position: jax.Array
    key: jax.Array


class QueueBase(Generic[Sample]):
    def __init__(self, data_shape, unflatten_fn, sample_batch_size):
        self._data_shape = data_shape
        self._unflatten_fn = unflatten_fn
        self._sample_batch_size = sample_batch_size
# ---- end of stand-ins ----

# For debug purposes
CRL_TRAINING = True


ReplayBufferState = Any

_PMAP_AXIS_NAME = "i"

# Custom Replay buffer
class TrajectoryUniformSamplingQueue(QueueBase[Sample], Generic[Sample]):
    """Implements an uniform sampling limited-size replay queue BUT WITH TRAJECTORIES."""

    def sample_internal(
        self, buffer_state: ReplayBufferState
    ) -> Tuple[ReplayBufferState, Sample]:
        if buffer_state.data.shape != self._data_shape:
            raise ValueError(
                f"Data shape expected by the replay buffer ({self._data_shape}) does "
                f"not match the shape of the buffer state ({buffer_state.data.shape})"
            )

        key, sample_key = jax.random.split(buffer_state.key)
        idx = jax.random.randint(
            sample_key,
            (self._sample_batch_size,),
            minval=buffer_state.sample_position,
            maxval=buffer_state.insert_position,
        )
        batch = jnp.take(buffer_state.data, idx, axis=0, mode="wrap")

        transitions = self._unflatten_fn(batch)
        transitions = jax.vmap(TrajectoryUniformSamplingQueue.flatten_fn)(transitions)
        return buffer_state.replace(key=key), transitions

    @staticmethod
    @jax.jit
    def flatten_fn(transition: Transition) -> Transition:
        # TODO: we can take more transitions, but they will be from the same trajectory
        # TODO: move outside
        Config = namedtuple("Config", "discount obs_dim start_index end_index")
        config = Config(discount=0.99, obs_dim=10, start_index=0, end_index=9)

        seq_len = transition.observation.shape[
            0
        ]  # Because it's jitted and vmaped it's shape is (T,obs_dim)
        arrangement = jnp.arange(seq_len)
        is_future_mask = jnp.array(
            arrangement[:, None] < arrangement[None], dtype=jnp.float32
        )
        discount = config.discount ** jnp.array(
            arrangement[None] - arrangement[:, None], dtype=jnp.float32
        )
        probs = is_future_mask * discount

        # TODO: probably use start_index and end_index if needed
        if CRL_TRAINING:
            goal_index = random.categorical(random.PRNGKey(0), jnp.log(probs))  # expect: JIT502
            goal = transition.observation[:, : config.obs_dim]
            goal = jnp.take(goal, goal_index[:-1], axis=0)
        else:
            goal = transition.observation[:-1, config.obs_dim :]

        state = transition.observation[:-1, : config.obs_dim]
        next_state = transition.observation[1:, : config.obs_dim]
        new_obs = jnp.concatenate([state, goal], axis=1)
        new_next_obs = jnp.concatenate([next_state, goal], axis=1)

        id_transition_to_take = random.randint(random.PRNGKey(0), (1,), 0, seq_len - 1)  # expect: JIT502
        extras = {
            "next_action": jnp.squeeze(transition.action[1:][id_transition_to_take]),
            "policy_extras": {},
            "state_extras": {
                "truncation": jnp.squeeze(
                    transition.extras["state_extras"]["truncation"][:-1][
                        id_transition_to_take
                    ]
                )
            },
        }

        transition = Transition(
            observation=jnp.squeeze(new_obs[id_transition_to_take]),
            action=jnp.squeeze(transition.action[:-1][id_transition_to_take]),
            reward=jnp.squeeze(transition.reward[:-1][id_transition_to_take]),
            discount=jnp.squeeze(transition.discount[:-1][id_transition_to_take]),
            next_observation=jnp.squeeze(new_next_obs[id_transition_to_take]),
            extras=extras,
        )
        return transition


def _unflatten(batch):
    return Transition(
        observation=batch[..., :20],
        action=batch[..., 20:22],
        reward=batch[..., 22],
        discount=batch[..., 23],
        next_observation=batch[..., :20],
        extras={"policy_extras": {}, "state_extras": {"truncation": batch[..., 24]}},
    )


def _make_buffer(N=8, T=6, B=4):
    import numpy as np
    obs = np.zeros((N, T, 20), np.float32)
    obs[:, :, 0] = np.arange(T)              # column 0: the step's time index
    obs[:, :, 1] = np.arange(N)[:, None]     # column 1: the trajectory's id
    data = np.concatenate([obs, np.zeros((N, T, 5), np.float32)], -1)
    queue = TrajectoryUniformSamplingQueue((N, T, 25), _unflatten, B)
    state = _BufferState(data=jnp.asarray(data), insert_position=jnp.int32(N),
                         sample_position=jnp.int32(0), key=jax.random.PRNGKey(0))
    return queue, state


if __name__ == "__main__":
    import numpy as np
    queue, state = _make_buffer()
    steps, goals, trajs = [], [], []
    for _ in range(3):
        state, tr = queue.sample_internal(state)
        steps.append(np.asarray(tr.observation[:, 0]))   # time index of the transition taken
        goals.append(np.asarray(tr.observation[:, 10]))  # time index of the goal (goal = obs[goal_index][:10])
        trajs.append(np.asarray(tr.observation[:, 1]))
    steps, goals, trajs = map(np.concatenate, (steps, goals, trajs))
    print("trajectories sampled:", trajs)
    print("transition index taken:", steps)
    print("goal index taken:", goals)
    assert len(set(trajs.tolist())) > 1
    # observed: line 108 every trajectory in every batch, on every call, gets the same goal indices (PRNGKey(0) under vmap and jit)
    assert len(set(goals.tolist())) == 1, goals
    # observed: line 119 every trajectory in every batch, on every call, takes the same transition (PRNGKey(0))
    assert len(set(steps.tolist())) == 1, steps
    print("observed: one transition index and one goal index for all 12 samples of 3 calls")
