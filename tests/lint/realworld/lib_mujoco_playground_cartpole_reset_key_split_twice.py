# source: https://github.com/google-deepmind/mujoco_playground/blob/d5e6b47531328468da1eec33b8b304a00bb0873c/mujoco_playground/_src/dm_control_suite/cartpole.py
#   (Balance: _reset_swing_up, _reset_balance, reset and _get_obs)
# observed on jax 0.10.2 CPU: reset hands `rng` to self._reset_randomize, which splits it,
#   and then splits the same `rng` again for the velocity noise. Under jax.jit(env.reset)
#   the balance task draws qvel from the very key that drew qpos[1:] (split(rng, 2)[1] both
#   times), so the two are correlated, and the key reset stores in info["rng"] for the
#   episode is the one that drew the cart position. The swing-up task, which splits the
#   same rng into 4, draws qvel from the key of its cart-position noise (split(rng, 4)[1]
#   equals split(rng, 2)[1]). Stand-ins (mujoco, mjx and ml_collections are not
#   installed): the __init__ is cut down to what reset reads (nq = nv = 2, the slider and
#   hinge_1 qpos addresses of cartpole.xml, no vision), and mjx_env.make_data,
#   mjx.forward, mjx.Data and mjx_env.State are minimal stand-ins (make_data builds qpos,
#   qvel and the identity body frames that _get_obs reads; forward returns it). The vision branches
#   are kept but never run. Added: the __main__ block.
# gap: other
import types
from typing import Any

import jax
import jax.numpy as jp
from flax import struct


@struct.dataclass
class _State:  # stand-in for mjx_env.State
  data: Any
  obs: Any
  reward: jax.Array
  done: jax.Array
  metrics: dict
  info: dict


@struct.dataclass
class _Data:  # stand-in for mjx.Data
  qpos: jax.Array
  qvel: jax.Array
  xmat: jax.Array


def _make_data(mj_model, qpos, qvel, impl, naconmax, njmax):
  # stand-in for mjx_env.make_data: world, cart and pole frames
  del mj_model, impl, naconmax, njmax
  return _Data(qpos=qpos, qvel=qvel, xmat=jp.tile(jp.eye(3), (3, 1, 1)))


mjx_env = types.SimpleNamespace(make_data=_make_data, State=_State)
mjx = types.SimpleNamespace(forward=lambda model, data: data)  # stand-in for mjx.forward


class Balance:
  """Cartpole environment with balance task."""

  def __init__(self, swing_up: bool):
    # cut down to what reset reads
    self._vision = False
    self._config = types.SimpleNamespace(naconmax=0, njmax=2)
    self.mj_model = None
    self.mjx_model = types.SimpleNamespace(
        nq=2, nv=2, impl=types.SimpleNamespace(value="jax")
    )
    if swing_up:
      self._reset_randomize = self._reset_swing_up
    else:
      self._reset_randomize = self._reset_balance
    self._slider_qposadr = 0
    self._hinge_1_qposadr = 1

  def _reset_swing_up(self, rng: jax.Array) -> jax.Array:
    _, rng1, rng2, rng3 = jax.random.split(rng, 4)

    qpos = jp.zeros(self.mjx_model.nq)
    qpos = qpos.at[self._slider_qposadr].set(0.01 * jax.random.normal(rng1))
    qpos = qpos.at[self._hinge_1_qposadr].set(
        jp.pi + 0.01 * jax.random.normal(rng2)
    )
    qpos = qpos.at[2:].set(
        0.1 * jax.random.uniform(rng3, (self.mjx_model.nq - 2,))
    )

    return qpos

  def _reset_balance(self, rng: jax.Array) -> jax.Array:
    rng1, rng2 = jax.random.split(rng, 2)

    qpos = jp.zeros(self.mjx_model.nq)
    qpos = qpos.at[self._slider_qposadr].set(
        jax.random.uniform(rng1, (), minval=-0.1, maxval=0.1)
    )
    qpos = qpos.at[1:].set(
        jax.random.uniform(
            rng2, (self.mjx_model.nq - 1,), minval=-0.034, maxval=0.034
        )
    )

    return qpos

  def reset(self, rng: jax.Array) -> _State:
    qpos = self._reset_randomize(rng)

    rng, rng1 = jax.random.split(rng, 2)  # expect: JIT502
    qvel = 0.01 * jax.random.normal(rng1, (self.mjx_model.nv,))

    data = mjx_env.make_data(
        self.mj_model,
        qpos=qpos,
        qvel=qvel,
        impl=self.mjx_model.impl.value,
        naconmax=self._config.naconmax,
        njmax=self._config.njmax,
    )
    data = mjx.forward(self.mjx_model, data)

    if self._vision:
      metrics = {
          "reward/alive": jp.zeros(()),
          "reward/pole_pos_penalty": jp.zeros(()),
          "reward/cart_pos_penalty": jp.zeros(()),
          "reward/cart_vel_penalty": jp.zeros(()),
          "reward/pole_vel_penalty": jp.zeros(()),
          "reward/action_penalty": jp.zeros(()),
      }
    else:
      metrics = {
          "reward/upright": jp.zeros(()),
          "reward/centered": jp.zeros(()),
          "reward/small_control": jp.zeros(()),
          "reward/small_velocity": jp.zeros(()),
          "reward/cart_in_bounds": jp.zeros(()),
          "reward/angle_in_bounds": jp.zeros(()),
      }
    info = {"rng": rng, "time_out": jp.float32(0.0)}

    reward, done = jp.zeros(2)  # pylint: disable=redefined-outer-name

    obs = self._get_obs(data, info)
    if self._vision:
      data = mjx.refit_bvh(self.mjx_model, data, self._rc_pytree)
      out = mjx.render(self.mjx_model, data, self._rc_pytree)
      data = out[2]
      rgb = mjx.get_rgb(self._rc_pytree, 0, out[0])
      gray = jp.mean(rgb, axis=-1, keepdims=True) - 0.5
      frame_stack = jp.repeat(gray, 3, axis=-1)
      info["frame_stack"] = frame_stack
      obs = {"pixels/view_0": frame_stack}

    return mjx_env.State(data, obs, reward, done, metrics, info)

  def _get_obs(self, data, info: dict[str, Any]) -> jax.Array:
    del info  # Unused.
    cart_position = data.qpos[self._slider_qposadr]
    pole_angle_cos = data.xmat[2:, 2, 2]  # zz.
    pole_angle_sin = data.xmat[2:, 0, 2]  # xz.
    return jp.concatenate([
        cart_position.reshape(1),
        pole_angle_cos,
        pole_angle_sin,
        data.qvel,
    ])


if __name__ == "__main__":
  key = jax.random.PRNGKey(0)

  env = Balance(swing_up=False)
  state = jax.jit(env.reset)(key)
  # the keys _reset_balance drew qpos from, split again to observe the bug
  rng1, rng2 = jax.random.split(key, 2)  # tolerate: JIT502
  # observed: line 101 splits again the rng that _reset_balance already split: qvel is
  # 0.01 * normal(rng2), from the key behind qpos[1] = uniform(rng2)
  assert jp.allclose(state.data.qvel, 0.01 * jax.random.normal(rng2, (2,)))
  assert jp.allclose(
      state.data.qpos[1:],
      jax.random.uniform(rng2, (1,), minval=-0.034, maxval=0.034),  # tolerate: JIT502
  )
  # ... and the episode key kept in info["rng"] is the one that drew the cart position
  assert (jax.random.key_data(state.info["rng"]) == jax.random.key_data(rng1)).all()

  swing = Balance(swing_up=True)
  s2 = jax.jit(swing.reset)(key)  # tolerate: JIT502
  swing_rng1 = jax.random.split(key, 4)[1]  # tolerate: JIT502
  # swing-up: qvel comes from the key of the cart-position noise
  assert jp.allclose(s2.data.qvel, 0.01 * jax.random.normal(swing_rng1, (2,)))
