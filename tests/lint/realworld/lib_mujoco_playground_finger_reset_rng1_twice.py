# source: https://github.com/google-deepmind/mujoco_playground/blob/d5e6b47531328468da1eec33b8b304a00bb0873c/mujoco_playground/_src/dm_control_suite/finger.py
#   (Spin.reset, shared by the Turn tasks; reported in mujoco_playground#349 "Fix PRNG key
#   reuse in DM Control resets": "Finger resets reused one key for joint positions and the
#   spinner angle", verified there under `jax.debug_key_reuse(True)`)
# observed on jax 0.10.2 CPU: line 83 draws the spinner angle from rng1, the key line 81
#   already consumed for the two joint angles; with jax_debug_key_reuse on, JAX raises
#   KeyReuseError at line 83 (and, under jax.jit, at the jitted call). Kept verbatim:
#   Spin.reset (its calls of mjx_env.make_data, mjx.forward and mjx_env.State spelled as
#   the stand-ins' bare names) and _post_init. Stand-ins (mujoco and mujoco_mjx are not installed):
#   State, make_data and forward stand in for mjx_env.State, mjx_env.make_data and
#   mjx.forward, Data for mjx.Data, MjxModelStandIn carries nq and impl, the joint ranges are given directly
#   (finger.xml's ±110 degrees), the config holds naconmax and njmax, and _get_obs returns
#   qpos and qvel.
# gap: other
import traceback
from typing import Any
import types

from flax import struct
import jax
import jax.numpy as jp
import numpy as np


@struct.dataclass
class Data:
  # stand-in for mjx.Data
  qpos: jax.Array
  qvel: jax.Array


@struct.dataclass
class State:
  # stand-in for mjx_env.State
  data: Data
  obs: jax.Array
  reward: jax.Array
  done: jax.Array
  metrics: dict
  info: dict


def make_data(mj_model, qpos, impl, naconmax, njmax):
  # stand-in for mjx_env.make_data
  return Data(qpos=qpos, qvel=jp.zeros_like(qpos))


def forward(mjx_model, data):
  # stand-in for mjx.forward
  return data


class MjxModelStandIn:
  nq = 3
  impl = types.SimpleNamespace(value="jax")


class Spin:
  """Spin environment."""

  def __init__(self):
    # stand-in for loading finger.xml into mj_model and mjx_model
    self._mj_model = types.SimpleNamespace(
        jnt_range=np.deg2rad(np.array([[-110.0, 110.0], [-110.0, 110.0], [-180.0, 180.0]])))
    self.mjx_model = MjxModelStandIn()
    self._config = types.SimpleNamespace(naconmax=None, njmax=None)
    self._post_init()

  def _post_init(self) -> None:
    self._lowers = self._mj_model.jnt_range[:2, 0]
    self._uppers = self._mj_model.jnt_range[:2, 1]

  def _get_obs(self, data, info: dict[str, Any]) -> jax.Array:
    # stand-in observation
    return jp.concatenate([data.qpos, data.qvel])

  def reset(self, rng: jax.Array) -> State:
    rng, rng1 = jax.random.split(rng, 2)
    qpos = jp.zeros(self.mjx_model.nq)
    qpos = qpos.at[:2].set(
        jax.random.uniform(rng1, (2,), minval=self._lowers, maxval=self._uppers)
    )
    qpos = qpos.at[2].set(jax.random.uniform(rng1, minval=-jp.pi, maxval=jp.pi))  # expect: JIT502

    data = make_data(
        self._mj_model,
        qpos=qpos,
        impl=self.mjx_model.impl.value,
        naconmax=self._config.naconmax,
        njmax=self._config.njmax,
    )
    data = forward(self.mjx_model, data)

    metrics = {}
    info = {"rng": rng}
    reward, done = jp.zeros(2)
    obs = self._get_obs(data, info)
    return State(data, obs, reward, done, metrics, info)


if __name__ == "__main__":
  env = Spin()
  state = jax.jit(env.reset)(jax.random.key(0))  # runs without the checker
  assert state.obs.shape == (6,)
  jax.config.update("jax_debug_key_reuse", True)
  try:
    env.reset(jax.random.key(0))  # tolerate: JIT502
    raise AssertionError("expected KeyReuseError")
  except jax.errors.KeyReuseError as e:
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
    # observed: line 83 reuses rng1, which JAX's key-reuse checker reports there
    assert frames[-1].lineno == 83, frames[-1].lineno
  try:
    jax.jit(env.reset)(jax.random.key(1))  # tolerate: JIT301
    raise AssertionError("expected KeyReuseError under jit")
  except jax.errors.KeyReuseError:
    pass
