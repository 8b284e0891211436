# source: https://github.com/google/brax/issues/249
# observed on jax 0.10.2 CPU: the four `.at[:].set(...)` lines return updated copies that
#   are thrown away, so the wrapped environment's state keeps the qp its reset produced
#   ("this doesn't seem to change the state of the environment. It remains the same as
#   what it was before."). The user's four lines are kept as posted. Stand-ins (brax 0.0.15,
#   gym and torch are not installed): QP and State as brax 0.0.15 defines them, a
#   one-body batched environment, gym.make's wrapper and JaxToTorchWrapper reduced to
#   their `.env` attribute, and a replay buffer holding one earlier qp. VectorGymWrapper
#   is brax's (brax/envs/wrappers.py at v0.0.15), with its gym base class, spaces,
#   metadata and render left out and `jp.random_split` spelled `jax.random.split`.
# gap: other
from typing import Any, Dict, Optional

from flax import struct
import jax
import jax.numpy as jnp


@struct.dataclass
class QP(object):
  """A coordinate and time derivative frame for a brax body."""
  pos: jnp.ndarray
  rot: jnp.ndarray
  vel: jnp.ndarray
  ang: jnp.ndarray


@struct.dataclass
class State:
  """Environment state for training and inference."""
  qp: QP
  obs: jnp.ndarray
  reward: jnp.ndarray
  done: jnp.ndarray
  metrics: Dict[str, jnp.ndarray] = struct.field(default_factory=dict)
  info: Dict[str, Any] = struct.field(default_factory=dict)


class BatchedEnvStandIn:
  # stand-in for a brax env created with batch_size=1: one body dropped near the origin
  batch_size = 1

  def reset(self, rng):
    pos = jax.random.uniform(rng, (self.batch_size, 1, 3))
    qp = QP(pos=pos, rot=jnp.tile(jnp.array([1.0, 0.0, 0.0, 0.0]), (self.batch_size, 1, 1)),
            vel=jnp.zeros_like(pos), ang=jnp.zeros_like(pos))
    return State(qp=qp, obs=pos.reshape(self.batch_size, -1),
                 reward=jnp.zeros(self.batch_size), done=jnp.zeros(self.batch_size))


class VectorGymWrapper:
  """A wrapper that converts batched Brax Env to one that follows Gym VectorEnv API."""

  def __init__(self,
               env,
               seed: int = 0,
               backend: Optional[str] = None):
    self._env = env
    if not hasattr(self._env, 'batch_size'):
      raise ValueError('underlying env must be batched')

    self.num_envs = self._env.batch_size
    self.seed(seed)
    self.backend = backend
    self._state = None

    def reset(key):
      key1, key2 = jax.random.split(key)
      state = self._env.reset(key2)
      return state, state.obs, key1

    self._reset = jax.jit(reset, backend=self.backend)

  def reset(self):
    self._state, obs, self._key = self._reset(self._key)
    return obs

  def seed(self, seed: int = 0):
    self._key = jax.random.PRNGKey(seed)


class WrapperStandIn:
  # stand-in for gym.make's wrapper and brax's JaxToTorchWrapper: they hold `.env`
  def __init__(self, env):
    self.env = env

  def reset(self):
    return self.env.reset()


class ReplayBufferStandIn:
  # stand-in for the user's replay buffer: one stored qp
  def __init__(self, qp):
    self.qp_buf = [qp]


if __name__ == "__main__":
  stored = QP(pos=jnp.full((1, 1, 3), 5.0), rot=jnp.full((1, 1, 4), 0.5),
              vel=jnp.ones((1, 1, 3)), ang=jnp.ones((1, 1, 3)))
  replay_buffer = ReplayBufferStandIn(stored)
  idx = 0
  env = WrapperStandIn(WrapperStandIn(VectorGymWrapper(BatchedEnvStandIn())))
  env.reset()
  before = env.env.env._state.qp
  ## resetting to a particular state
  env.env.env._state.qp.pos.at[:].set(replay_buffer.qp_buf[idx].pos[:])  # expect: JIT503
  env.env.env._state.qp.rot.at[:].set(replay_buffer.qp_buf[idx].rot[:])  # expect: JIT503
  env.env.env._state.qp.vel.at[:].set(replay_buffer.qp_buf[idx].vel[:])  # expect: JIT503
  env.env.env._state.qp.ang.at[:].set(replay_buffer.qp_buf[idx].ang[:])  # expect: JIT503
  after = env.env.env._state.qp
  # observed: line 106, line 107, line 108 and line 109 discard their updates: the state is unchanged
  for field in ("pos", "rot", "vel", "ang"):
    assert jnp.array_equal(getattr(after, field), getattr(before, field)), field
    assert not jnp.array_equal(getattr(after, field), getattr(stored, field)), field
