# source: https://github.com/google/brax/issues/440
# observed on jax 0.10.2 CPU: VectorGymWrapper jits its reset once, so the user's reset
#   reads self.init_pos only while it is traced: after set_initial_state(new_pos) the next
#   env.reset() still places the torso at the first init_pos ("subsequent calls result in
#   the same pose being set as the first time I called set_initial_state"). The user's
#   set_initial_state and reset are kept as posted; the class around them (named
#   PosResetEnv here), the end of reset (return State(...)) and the environment it
#   subclasses (q, sys, pipeline_init, _get_obs, _reset_noise_scale) are minimal stand-ins,
#   as are brax's State and VmapWrapper (brax and gym are not installed).
#   VectorGymWrapper is brax's (brax/envs/wrappers/gym.py at v0.9.4), with its gym base
#   class, spaces, metadata and render left out.
# gap: stale-state-attributes
from typing import Optional

from flax import struct
import jax
import jax.numpy as jnp


@struct.dataclass
class State:
  # stand-in for brax.envs.base.State
  pipeline_state: jax.Array
  obs: jax.Array
  reward: jax.Array
  done: jax.Array


class _SysStandIn:
  # stand-in for brax.System: a free body with xy, z and a 4-joint leg
  def q_size(self):
    return 7

  def qd_size(self):
    return 7


class PipelineEnvStandIn:
  # stand-in for the brax environment the user's wrapper subclasses (Ant-like)
  def __init__(self):
    self.sys = _SysStandIn()
    self.q = jnp.array([0.0, 0.0, 0.75, 0.0, 0.0, 0.0, 0.0])
    self._reset_noise_scale = 0.1

  def pipeline_init(self, q, qd):
    return jnp.concatenate([q, qd])

  def _get_obs(self, pipeline_state):
    return pipeline_state


class PosResetEnv(PipelineEnvStandIn):
    def __init__(self):
        super().__init__()
        self.init_pos = jnp.zeros(2)

    def set_initial_state(self, init_pos: jax.Array):
        self.init_pos = self.init_pos.at[:].set(init_pos)

    def reset(self, rng: jax.Array) -> State:
        rng, rng1, rng2 = jax.random.split(rng, 3)

        low, hi = -self._reset_noise_scale, self._reset_noise_scale
        q = self.q
        q = q.at[:2].set(self.init_pos)  # expect: JIT201
        q += jax.random.uniform(
            rng1, (self.sys.q_size(),), minval=low, maxval=hi
        )
        qd = hi * jax.random.normal(rng2, (self.sys.qd_size(),))

        pipeline_state = self.pipeline_init(q, qd)
        obs = self._get_obs(pipeline_state)
        return State(pipeline_state, obs, jnp.zeros(()), jnp.zeros(()))


class VmapWrapper:
  # stand-in for brax.envs.wrappers.training.VmapWrapper
  def __init__(self, env, batch_size: int):
    self.env = env
    self.batch_size = batch_size
    self.observation_size = 14

  def reset(self, rng: jax.Array) -> State:
    rng = jax.random.split(rng, self.batch_size)
    return jax.vmap(self.env.reset)(rng)


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


if __name__ == "__main__":
  env = PosResetEnv()
  gym_env = VectorGymWrapper(VmapWrapper(env, batch_size=2))
  env.set_initial_state(jnp.array([1.0, 2.0]))
  first = gym_env.reset()
  env.set_initial_state(jnp.array([-3.0, 5.0]))
  second = gym_env.reset()
  # observed: line 65 keeps the first init_pos: the torso is reset near (1, 2) again
  assert jnp.allclose(first[:, :2], jnp.array([1.0, 2.0]), atol=0.1), first
  assert jnp.allclose(second[:, :2], jnp.array([1.0, 2.0]), atol=0.1), second
