# source: https://github.com/google-deepmind/mujoco_playground/blob/d5e6b47531328468da1eec33b8b304a00bb0873c/mujoco_playground/_src/dm_control_suite/reacher.py
#   (Reacher: reset, step, _get_obs, _get_reward and the finger helpers; with
#   tolerance and _sigmoids from mujoco_playground/_src/reward.py at the same commit)
# observed on jax 0.10.2 CPU: runs clean under jax.jit(env.reset) and jax.jit(env.step):
#   reset splits rng once into five keys and draws each of the shoulder angle, the wrist
#   angle and the target's angle and radius from its own key, keeping the fifth for the
#   episode (two seeds give different arms, targets and episode keys). In
#   tolerance, `if lower > upper`, `if margin < 0`, `if margin == 0` and the sigmoid
#   checks read the static bounds (0, self._radii) and keyword defaults, not the traced
#   distance. Stand-ins (mujoco, mjx, etils and ml_collections are not installed): the
#   __init__ and _post_init are cut down to the values they read from reacher.xml (geom
#   ids 7 and 8 for finger and target, mocap id 0, the wrist range of +-160 degrees, the
#   radii 0.05 + 0.01), and mjx.Data, mjx_env.make_data, mjx.forward, mjx_env.step and
#   mjx_env.State are minimal stand-ins (forward places the finger by the arm's planar
#   kinematics and the target at its mocap position; step integrates the joints). Added:
#   the __main__ block.
# gap: other
import types
import warnings
from typing import Any

import jax
import jax.numpy as jp
import numpy as np
from flax import struct

# The value returned by tolerance() at `margin` distance from `bounds` interval.
_DEFAULT_VALUE_AT_MARGIN = 0.1


def _sigmoids(x, value_at_1, sigmoid):
  if sigmoid in ("cosine", "linear", "quadratic"):
    if not 0 <= value_at_1 < 1:
      raise ValueError(
          "`value_at_1` must be nonnegative and smaller than 1, got "
          f"{value_at_1}."
      )
  else:
    if not 0 < value_at_1 < 1:
      raise ValueError(
          f"`value_at_1` must be strictly between 0 and 1, got {value_at_1}."
      )

  if sigmoid == "gaussian":
    scale = jp.sqrt(-2 * jp.log(value_at_1))
    return jp.exp(-0.5 * (x * scale) ** 2)

  elif sigmoid == "hyperbolic":
    scale = jp.arccosh(1 / value_at_1)
    return 1 / jp.cosh(x * scale)

  elif sigmoid == "long_tail":
    scale = jp.sqrt(1 / value_at_1 - 1)
    return 1 / ((x * scale) ** 2 + 1)

  elif sigmoid == "reciprocal":
    scale = 1 / value_at_1 - 1
    return 1 / (abs(x) * scale + 1)

  elif sigmoid == "cosine":
    scale = jp.arccos(2 * value_at_1 - 1) / jp.pi
    scaled_x = x * scale
    with warnings.catch_warnings():
      warnings.filterwarnings(
          action="ignore", message="invalid value encountered in cos"
      )
      cos_pi_scaled_x = jp.cos(jp.pi * scaled_x)
    return jp.where(abs(scaled_x) < 1, (1 + cos_pi_scaled_x) / 2, 0.0)

  elif sigmoid == "linear":
    scale = 1 - value_at_1
    scaled_x = x * scale
    return jp.where(abs(scaled_x) < 1, 1 - scaled_x, 0.0)

  elif sigmoid == "quadratic":
    scale = jp.sqrt(1 - value_at_1)
    scaled_x = x * scale
    return jp.where(abs(scaled_x) < 1, 1 - scaled_x**2, 0.0)

  elif sigmoid == "tanh_squared":
    scale = jp.arctanh(jp.sqrt(1 - value_at_1))
    return 1 - jp.tanh(x * scale) ** 2

  else:
    raise ValueError(f"Unknown sigmoid type {sigmoid!r}.")


def tolerance(
    x: jp.ndarray,
    bounds: tuple[float, float] = (0.0, 0.0),
    margin: float = 0.0,
    sigmoid: str = "gaussian",
    value_at_margin: float = _DEFAULT_VALUE_AT_MARGIN,
) -> jp.ndarray:
  """Returns 1 when `x` falls inside the bounds, between 0 and 1 otherwise."""
  lower, upper = bounds
  if lower > upper:
    raise ValueError("Lower bound must be <= upper bound.")
  if margin < 0:
    raise ValueError("`margin` must be non-negative.")

  in_bounds = jp.logical_and(lower <= x, x <= upper)
  if margin == 0:
    value = jp.where(in_bounds, 1.0, 0.0)
  else:
    d = jp.where(x < lower, lower - x, x - upper) / margin
    value = jp.where(in_bounds, 1.0, _sigmoids(d, value_at_margin, sigmoid))

  return value


reward = types.SimpleNamespace(tolerance=tolerance)


@struct.dataclass
class _Data:  # stand-in for mjx.Data
  qpos: jax.Array
  qvel: jax.Array
  mocap_pos: jax.Array
  geom_xpos: jax.Array


def _forward(model, data):
  # stand-in for mjx.forward: planar arm (0.12 + 0.12 to the finger), target at its mocap
  del model
  q0, q1 = data.qpos[0], data.qpos[1]
  hand = 0.12 * jp.array([jp.cos(q0), jp.sin(q0), 0.0])
  finger = hand + 0.12 * jp.array([jp.cos(q0 + q1), jp.sin(q0 + q1), 0.0])
  geom_xpos = jp.zeros((9, 3)).at[7].set(finger).at[8].set(data.mocap_pos[0])
  return data.replace(geom_xpos=geom_xpos)


def _make_data(mj_model, qpos, impl, naconmax, njmax):
  # stand-in for mjx_env.make_data
  del mj_model, impl, naconmax, njmax
  return _Data(qpos=qpos, qvel=jp.zeros(2), mocap_pos=jp.zeros((1, 3)),
               geom_xpos=jp.zeros((9, 3)))


def _step(model, data, action, n_substeps):
  # stand-in for mjx_env.step: integrate the joints, then forward
  def substep(data, _):
    qvel = data.qvel + 0.005 * action
    return data.replace(qvel=qvel, qpos=data.qpos + 0.005 * qvel), None

  data, _ = jax.lax.scan(substep, data, None, length=n_substeps)
  return _forward(model, data)


@struct.dataclass
class _State:  # stand-in for mjx_env.State
  data: Any
  obs: jax.Array
  reward: jax.Array
  done: jax.Array
  metrics: dict
  info: dict


mjx_env = types.SimpleNamespace(make_data=_make_data, step=_step, State=_State)
mjx = types.SimpleNamespace(forward=_forward)


class Reacher:
  """Reacher environment."""

  def __init__(self, target_size: float):
    # cut down: the values _post_init reads from reacher.xml
    self._config = types.SimpleNamespace(naconmax=0, njmax=0)
    self.mj_model = None
    self.mjx_model = types.SimpleNamespace(
        nq=2, nu=2, impl=types.SimpleNamespace(value="jax")
    )
    self.n_substeps = 4
    self._target_size = target_size
    self._target_mocap_body_id = 0
    self._finger_geom_id = 7
    self._target_geom_id = 8
    self._radii = np.array([target_size, 0.01]).sum()
    self._shoulder_qposadr = 0
    self._wrist_qposadr = 1
    self._wrist_lower = np.deg2rad(-160.0)
    self._wrist_upper = np.deg2rad(160.0)

  def reset(self, rng: jax.Array) -> _State:
    rng, rng1, rng2, rng3, rng4 = jax.random.split(rng, 5)

    qpos = jp.zeros(self.mjx_model.nq)
    qpos = qpos.at[self._shoulder_qposadr].set(
        jax.random.uniform(rng1, (), minval=-jp.pi, maxval=jp.pi)
    )
    qpos = qpos.at[self._wrist_qposadr].set(
        jax.random.uniform(
            rng2, (), minval=self._wrist_lower, maxval=self._wrist_upper
        )
    )

    data = mjx_env.make_data(
        self.mj_model,
        qpos=qpos,
        impl=self.mjx_model.impl.value,
        naconmax=self._config.naconmax,
        njmax=self._config.njmax,
    )
    data = mjx.forward(self.mjx_model, data)

    angle = jax.random.uniform(rng3, ()) * 2 * jp.pi
    radius = jax.random.uniform(rng4, (), minval=0.05, maxval=0.2)
    xy = radius * jp.array([jp.sin(angle), jp.cos(angle)])
    data = data.replace(
        mocap_pos=data.mocap_pos.at[self._target_mocap_body_id, :2].set(xy)
    )

    metrics = {}
    info = {"rng": rng}

    reward, done = jp.zeros(2)  # pylint: disable=redefined-outer-name
    obs = self._get_obs(data, info)
    return mjx_env.State(data, obs, reward, done, metrics, info)

  def step(self, state: _State, action: jax.Array) -> _State:
    data = mjx_env.step(self.mjx_model, state.data, action, self.n_substeps)
    reward = self._get_reward(data, action, state.info, state.metrics)  # pylint: disable=redefined-outer-name
    obs = self._get_obs(data, state.info)
    done = jp.isnan(data.qpos).any() | jp.isnan(data.qvel).any()
    done = done.astype(float)
    return mjx_env.State(data, obs, reward, done, state.metrics, state.info)

  def _get_obs(self, data, info: dict[str, Any]) -> jax.Array:
    del info  # Unused.
    return jp.concatenate([
        data.qpos,
        self._finger_to_target(data),
        data.qvel,
    ])

  def _get_reward(
      self,
      data,
      action: jax.Array,
      info: dict[str, Any],
      metrics: dict[str, Any],
  ) -> jax.Array:
    del action, info, metrics  # Unused.
    return reward.tolerance(self._finger_to_target_dist(data), (0, self._radii))

  def _finger_to_target(self, data) -> jax.Array:
    target_pos = data.geom_xpos[self._target_geom_id, :2]
    finger_pos = data.geom_xpos[self._finger_geom_id, :2]
    return target_pos - finger_pos

  def _finger_to_target_dist(self, data) -> jax.Array:
    return jp.linalg.norm(self._finger_to_target(data))


if __name__ == "__main__":
  env = Reacher(target_size=0.05)
  reset, step = jax.jit(env.reset), jax.jit(env.step)
  s0 = reset(jax.random.PRNGKey(0))
  s1 = reset(jax.random.PRNGKey(1))
  assert not jp.allclose(s0.data.qpos, s1.data.qpos)
  assert not jp.allclose(s0.data.mocap_pos, s1.data.mocap_pos)
  # shoulder, wrist, target angle and radius are four different draws
  q0, q1 = (float(q) for q in s0.data.qpos)
  radius = float(jp.linalg.norm(s0.data.mocap_pos[0, :2]))
  assert len({q0, q1, radius}) == 3
  assert -np.pi <= q0 <= np.pi and np.deg2rad(-160.0) <= q1 <= np.deg2rad(160.0)
  assert 0.05 <= radius <= 0.2
  # the episode keys of the two seeds differ
  assert not (
      jax.random.key_data(s0.info["rng"]) == jax.random.key_data(s1.info["rng"])
  ).all()

  state = s0
  for _ in range(5):
    state = step(state, jp.array([1.0, -1.0]))
  assert state.obs.shape == (6,) and state.done == 0.0
  assert 0.0 <= float(state.reward) <= 1.0
  # a finger placed on the target gets the full reward
  on_target = state.data.replace(
      mocap_pos=state.data.mocap_pos.at[0].set(state.data.geom_xpos[7])
  )
  on_target = mjx.forward(None, on_target)
  assert float(jax.jit(env._get_reward)(on_target, jp.zeros(2), {}, {})) == 1.0
