# source: https://github.com/google-deepmind/mujoco_playground/blob/2196dba7656386e52bec0b30086c67a8b00d1ed9/mujoco_playground/_src/manipulation/leap_hand/reorient.py
#   (domain_randomize of the LEAP hand cube reorientation task, before 58c5bb2, "Fix #183",
#   which deletes the cube friction and cube mass randomization from it)
# observed on jax 0.10.2 CPU: in the vmapped `rand`, the cube friction is drawn from `key`
#   and the fingertip friction is drawn again from the same `key` (with a typed key and
#   jax.debug_key_reuse(True) the second draw raises KeyReuseError); the cube friction
#   update `model.geom_friction.at[cube_geom_id ...].set(...)` is never read, because the
#   fingertip update starts again from model.geom_friction, and the cube mass update
#   `model.body_mass.at[cube_body_id].set(...)` is never read, because the hand link masses
#   start again from model.body_mass: in every randomized model the cube keeps its nominal
#   friction and mass. Kept as mujoco_playground wrote it: domain_randomize. Added: mujoco is
#   not installed, so mjx.Model is a stand-in pytree with the fields domain_randomize reads
#   and mjx's `tree_replace`; CubeReorient().mj_model is a stand-in with named geom, body and
#   joint lookups for a 16-joint hand and a free cube; mjx_env.get_qpos_ids is reduced to
#   hinge joints; consts.JOINT_NAMES is leap_hand_constants.JOINT_NAMES. domain_randomize is
#   called as brax's DomainRandomizationVmapWrapper calls it.
# gap: other
import dataclasses
from types import SimpleNamespace

import jax
import jax.numpy as jp
import numpy as np
from flax import struct


@struct.dataclass
class Model:
  # stand-in for mujoco.mjx.Model: the fields domain_randomize reads
  geom_friction: jax.Array
  body_mass: jax.Array
  body_inertia: jax.Array
  body_ipos: jax.Array
  qpos0: jax.Array
  dof_frictionloss: jax.Array
  dof_armature: jax.Array
  dof_damping: jax.Array
  actuator_gainprm: jax.Array
  actuator_biasprm: jax.Array
  nu: int = struct.field(pytree_node=False, default=16)

  def tree_replace(self, params):
    # as mjx.Model.tree_replace, for top-level attributes
    return dataclasses.replace(self, **params)


class mjx:
  Model = Model


class consts:
  # leap_hand_constants.JOINT_NAMES
  JOINT_NAMES = [
      "if_mcp", "if_rot", "if_pip", "if_dip",
      "mf_mcp", "mf_rot", "mf_pip", "mf_dip",
      "rf_mcp", "rf_rot", "rf_pip", "rf_dip",
      "th_cmc", "th_axl", "th_mcp", "th_ipl",
  ]


class _Named:
  # stand-in for mujoco.MjModel's named access (model.geom("cube").id)
  def __init__(self, names):
    self._names = names

  def __call__(self, name):
    return SimpleNamespace(id=self._names.index(name))


class MjModelStandIn:
  geom = _Named(["floor", "palm", "if_tip", "mf_tip", "rf_tip", "th_tip", "cube"])
  body = _Named([
      "world", "palm", "if_bs", "if_px", "if_md", "if_ds", "mf_bs", "mf_px",
      "mf_md", "mf_ds", "rf_bs", "rf_px", "rf_md", "rf_ds", "th_mp", "th_bs",
      "th_px", "th_ds", "cube",
  ])
  joint = _Named(consts.JOINT_NAMES + ["cube_freejoint"])


class CubeReorient:
  # stand-in for the environment class: only its mj_model is used here
  mj_model = MjModelStandIn()


class mjx_env:
  @staticmethod
  def get_qpos_ids(model, joint_names):
    # reduced to hinge joints, whose qpos address is their joint id here
    return np.array([model.joint(n).id for n in joint_names])


def domain_randomize(model: mjx.Model, rng: jax.Array):
  mj_model = CubeReorient().mj_model
  cube_geom_id = mj_model.geom("cube").id
  cube_body_id = mj_model.body("cube").id
  hand_qids = mjx_env.get_qpos_ids(mj_model, consts.JOINT_NAMES)
  hand_body_names = [
      "palm",
      "if_bs",
      "if_px",
      "if_md",
      "if_ds",
      "mf_bs",
      "mf_px",
      "mf_md",
      "mf_ds",
      "rf_bs",
      "rf_px",
      "rf_md",
      "rf_ds",
      "th_mp",
      "th_bs",
      "th_px",
      "th_ds",
  ]
  hand_body_ids = np.array([mj_model.body(n).id for n in hand_body_names])
  fingertip_geoms = ["th_tip", "if_tip", "mf_tip", "rf_tip"]
  fingertip_geom_ids = [mj_model.geom(g).id for g in fingertip_geoms]

  @jax.vmap
  def rand(rng):
    # Cube friction: =U(0.1, 0.5).
    rng, key = jax.random.split(rng)
    cube_friction = jax.random.uniform(key, (1,), minval=0.1, maxval=0.5)
    geom_friction = model.geom_friction.at[  # expect: JIT503
        cube_geom_id : cube_geom_id + 1, 0
    ].set(cube_friction)

    # Fingertip friction: =U(0.5, 1.0).
    fingertip_friction = jax.random.uniform(key, (1,), minval=0.5, maxval=1.0)  # expect: JIT502
    geom_friction = model.geom_friction.at[fingertip_geom_ids, 0].set(
        fingertip_friction
    )

    # Scale cube mass: *U(0.8, 1.2).
    rng, key1, key2 = jax.random.split(rng, 3)
    dmass = jax.random.uniform(key1, minval=0.8, maxval=1.2)
    cube_mass = model.body_mass[cube_body_id]
    body_mass = model.body_mass.at[cube_body_id].set(cube_mass * dmass)  # expect: JIT503
    body_inertia = model.body_inertia.at[cube_body_id].set(
        model.body_inertia[cube_body_id] * dmass
    )
    dpos = jax.random.uniform(key2, (3,), minval=-5e-3, maxval=5e-3)
    body_ipos = model.body_ipos.at[cube_body_id].set(
        model.body_ipos[cube_body_id] + dpos
    )

    # Jitter qpos0: +U(-0.05, 0.05).
    rng, key = jax.random.split(rng)
    qpos0 = model.qpos0
    qpos0 = qpos0.at[hand_qids].set(
        qpos0[hand_qids]
        + jax.random.uniform(key, shape=(16,), minval=-0.05, maxval=0.05)
    )

    # Scale static friction: *U(0.9, 1.1).
    rng, key = jax.random.split(rng)
    frictionloss = model.dof_frictionloss[hand_qids] * jax.random.uniform(
        key, shape=(16,), minval=0.5, maxval=2.0
    )
    dof_frictionloss = model.dof_frictionloss.at[hand_qids].set(frictionloss)

    # Scale armature: *U(1.0, 1.05).
    rng, key = jax.random.split(rng)
    armature = model.dof_armature[hand_qids] * jax.random.uniform(
        key, shape=(16,), minval=1.0, maxval=1.05
    )
    dof_armature = model.dof_armature.at[hand_qids].set(armature)

    # Scale all link masses: *U(0.9, 1.1).
    rng, key = jax.random.split(rng)
    dmass = jax.random.uniform(
        key, shape=(len(hand_body_ids),), minval=0.9, maxval=1.1
    )
    body_mass = model.body_mass.at[hand_body_ids].set(
        model.body_mass[hand_body_ids] * dmass
    )

    # Joint stiffness: *U(0.8, 1.2).
    rng, key = jax.random.split(rng)
    kp = model.actuator_gainprm[:, 0] * jax.random.uniform(
        key, (model.nu,), minval=0.8, maxval=1.2
    )
    actuator_gainprm = model.actuator_gainprm.at[:, 0].set(kp)
    actuator_biasprm = model.actuator_biasprm.at[:, 1].set(-kp)

    # Joint damping: *U(0.8, 1.2).
    rng, key = jax.random.split(rng)
    kd = model.dof_damping[hand_qids] * jax.random.uniform(
        key, (16,), minval=0.8, maxval=1.2
    )
    dof_damping = model.dof_damping.at[hand_qids].set(kd)

    return (
        geom_friction,
        body_mass,
        body_inertia,
        body_ipos,
        qpos0,
        dof_frictionloss,
        dof_armature,
        dof_damping,
        actuator_gainprm,
        actuator_biasprm,
    )

  (
      geom_friction,
      body_mass,
      body_inertia,
      body_ipos,
      qpos0,
      dof_frictionloss,
      dof_armature,
      dof_damping,
      actuator_gainprm,
      actuator_biasprm,
  ) = rand(rng)

  in_axes = jax.tree_util.tree_map(lambda x: None, model)
  in_axes = in_axes.tree_replace({
      "geom_friction": 0,
      "body_mass": 0,
      "body_inertia": 0,
      "body_ipos": 0,
      "qpos0": 0,
      "dof_frictionloss": 0,
      "dof_armature": 0,
      "dof_damping": 0,
      "actuator_gainprm": 0,
      "actuator_biasprm": 0,
  })

  model = model.tree_replace({
      "geom_friction": geom_friction,
      "body_mass": body_mass,
      "body_inertia": body_inertia,
      "body_ipos": body_ipos,
      "qpos0": qpos0,
      "dof_frictionloss": dof_frictionloss,
      "dof_armature": dof_armature,
      "dof_damping": dof_damping,
      "actuator_gainprm": actuator_gainprm,
      "actuator_biasprm": actuator_biasprm,
  })

  return model, in_axes


if __name__ == "__main__":
  import traceback

  model = Model(
      geom_friction=jp.ones((7, 3)),
      body_mass=jp.full((19,), 0.05),
      body_inertia=jp.full((19, 3), 1e-5),
      body_ipos=jp.zeros((19, 3)),
      qpos0=jp.zeros((23,)),
      dof_frictionloss=jp.full((22,), 0.01),
      dof_armature=jp.full((22,), 0.001),
      dof_damping=jp.full((22,), 0.05),
      actuator_gainprm=jp.ones((16, 10)),
      actuator_biasprm=jp.zeros((16, 10)),
  )
  cube_geom_id, cube_body_id = 6, 18
  # called as brax's DomainRandomizationVmapWrapper calls it
  randomized, in_axes = domain_randomize(model, jax.random.split(jax.random.PRNGKey(0), 4))
  # observed: line 125 is discarded: the cube keeps its nominal friction in every model
  assert jp.all(randomized.geom_friction[:, cube_geom_id, 0] == 1.0), randomized.geom_friction
  assert not jp.all(randomized.geom_friction[:, 2:6, 0] == 1.0)
  # observed: line 139 is discarded: the cube keeps its nominal mass in every model
  assert jp.all(randomized.body_mass[:, cube_body_id] == 0.05), randomized.body_mass
  assert not jp.all(randomized.body_inertia[:, cube_body_id] == 1e-5)

  # observed: line 130 draws the fingertip friction from the key the cube friction used
  try:
    with jax.debug_key_reuse(True):
      domain_randomize(model, jax.random.split(jax.random.key(0), 4))
  except jax.errors.KeyReuseError as err:
    frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename == __file__]
    assert frames[-1].lineno == 130, frames[-1]
  else:
    raise AssertionError("no key reuse reported")
