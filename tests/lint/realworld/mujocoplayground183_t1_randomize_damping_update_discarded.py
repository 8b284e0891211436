# source: https://github.com/google-deepmind/mujoco_playground/issues/183
#   ("Recurring bug in domain randomization functions": "The last line overwrites the
#   dof_damping variable and modifies model.dof_damping directly. I'd expect it to be:
#   `dof_damping = dof_damping.at[ANKLE_JOINT_IDS].set(kd)`"; fixed in 58c5bb2, "Fix #183",
#   which drops the first damping update). The code is
#   mujoco_playground/_src/locomotion/t1/randomize.py at 2196dba.
# observed on jax 0.10.2 CPU: `.at[6:].set(kd)` (the joint damping scale) builds an updated
#   copy of model.dof_damping that is never read: the ankle update on the next lines starts
#   again from model.dof_damping, so in every randomized model the damping of the non-ankle
#   joints is the nominal one, never scaled by U(0.9, 1.1). Kept as mujoco_playground wrote
#   it: domain_randomize. Added: mujoco is not installed, so mjx.Model is a stand-in pytree
#   with the eight fields domain_randomize reads and mjx's `tree_replace`, sized like the T1
#   humanoid (29 dofs, 23 actuated); a __main__ block randomizes four models, calling
#   domain_randomize as brax's DomainRandomizationVmapWrapper does (its rand_dynamics is vmapped).
# gap: other
import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct


@struct.dataclass
class Model:
  # stand-in for mujoco.mjx.Model: the fields domain_randomize reads
  geom_friction: jax.Array
  dof_frictionloss: jax.Array
  dof_armature: jax.Array
  body_mass: jax.Array
  qpos0: jax.Array
  actuator_gainprm: jax.Array
  actuator_biasprm: jax.Array
  dof_damping: jax.Array
  nbody: int = struct.field(pytree_node=False, default=25)
  nu: int = struct.field(pytree_node=False, default=23)

  def tree_replace(self, params):
    # as mjx.Model.tree_replace, for top-level attributes
    return dataclasses.replace(self, **params)


class mjx:
  Model = Model


FLOOR_GEOM_ID = 0
TORSO_BODY_ID = 1
ANKLE_JOINT_IDS = np.array([[21, 22, 27, 28]])


def domain_randomize(model: mjx.Model, rng: jax.Array):
  @jax.vmap
  def rand_dynamics(rng):
    # Floor friction: =U(0.4, 1.0).
    rng, key = jax.random.split(rng)
    geom_friction = model.geom_friction.at[FLOOR_GEOM_ID, 0].set(
        jax.random.uniform(key, minval=0.2, maxval=0.6)
    )

    rng, key = jax.random.split(rng)
    frictionloss = model.dof_frictionloss[6:] * jax.random.uniform(
        key, shape=(23,), minval=0.9, maxval=1.1
    )
    dof_frictionloss = model.dof_frictionloss.at[6:].set(frictionloss)

    # Scale armature: *U(1.0, 1.05).
    rng, key = jax.random.split(rng)
    armature = model.dof_armature[6:] * jax.random.uniform(
        key, shape=(23,), minval=1.0, maxval=1.05
    )
    dof_armature = model.dof_armature.at[6:].set(armature)

    # Scale all link masses: *U(0.98, 1.02).
    rng, key = jax.random.split(rng)
    dmass = jax.random.uniform(
        key, shape=(model.nbody,), minval=0.98, maxval=1.02
    )
    body_mass = model.body_mass.at[:].set(model.body_mass * dmass)

    # Add mass to torso: +U(-1.0, 1.0).
    rng, key = jax.random.split(rng)
    dmass = jax.random.uniform(key, minval=-1.0, maxval=1.0)
    body_mass = body_mass.at[TORSO_BODY_ID].set(
        body_mass[TORSO_BODY_ID] + dmass
    )

    # Jitter qpos0: +U(-0.05, 0.05).
    rng, key = jax.random.split(rng)
    qpos0 = model.qpos0
    qpos0 = qpos0.at[7:].set(
        qpos0[7:]
        + jax.random.uniform(key, shape=(23,), minval=-0.05, maxval=0.05)
    )

    # Joint stiffness: *U(0.9, 1.1).
    rng, key = jax.random.split(rng)
    kp = model.actuator_gainprm[:, 0] * jax.random.uniform(
        key, (model.nu,), minval=0.9, maxval=1.1
    )
    actuator_gainprm = model.actuator_gainprm.at[:, 0].set(kp)
    actuator_biasprm = model.actuator_biasprm.at[:, 1].set(-kp)

    # Joint damping: *U(0.9, 1.1).
    rng, key = jax.random.split(rng)
    kd = model.dof_damping[6:] * jax.random.uniform(
        key, (23,), minval=0.9, maxval=1.1
    )
    dof_damping = model.dof_damping.at[6:].set(kd)  # expect: JIT503

    # Higher range on the ankles.
    rng, key = jax.random.split(rng)
    kd = model.dof_damping[ANKLE_JOINT_IDS] * jax.random.uniform(
        key, (4,), minval=0.5, maxval=2.0
    )
    dof_damping = model.dof_damping.at[ANKLE_JOINT_IDS].set(kd)

    return (
        geom_friction,
        dof_frictionloss,
        dof_armature,
        body_mass,
        qpos0,
        actuator_gainprm,
        actuator_biasprm,
        dof_damping,
    )

  (
      friction,
      frictionloss,
      armature,
      body_mass,
      qpos0,
      actuator_gainprm,
      actuator_biasprm,
      dof_damping,
  ) = rand_dynamics(rng)

  in_axes = jax.tree_util.tree_map(lambda x: None, model)
  in_axes = in_axes.tree_replace({
      "geom_friction": 0,
      "dof_frictionloss": 0,
      "dof_armature": 0,
      "body_mass": 0,
      "qpos0": 0,
      "actuator_gainprm": 0,
      "actuator_biasprm": 0,
      "dof_damping": 0,
  })

  model = model.tree_replace({
      "geom_friction": friction,
      "dof_frictionloss": frictionloss,
      "dof_armature": armature,
      "body_mass": body_mass,
      "qpos0": qpos0,
      "actuator_gainprm": actuator_gainprm,
      "actuator_biasprm": actuator_biasprm,
      "dof_damping": dof_damping,
  })

  return model, in_axes


if __name__ == "__main__":
  model = Model(
      geom_friction=jnp.ones((10, 3)),
      dof_frictionloss=jnp.full((29,), 0.1),
      dof_armature=jnp.full((29,), 0.01),
      body_mass=jnp.ones((25,)),
      qpos0=jnp.zeros((30,)),
      actuator_gainprm=jnp.ones((23, 10)),
      actuator_biasprm=jnp.zeros((23, 10)),
      dof_damping=jnp.full((29,), 2.0),
  )
  rng = jax.random.split(jax.random.PRNGKey(0), 4)
  randomized, in_axes = domain_randomize(model, rng)  # as brax's DomainRandomizationVmapWrapper calls it
  non_ankle = np.setdiff1d(np.arange(6, 29), ANKLE_JOINT_IDS.ravel())
  # observed: line 109 is discarded: the non-ankle joints keep the nominal damping in every model
  assert jnp.all(randomized.dof_damping[:, non_ankle] == 2.0), randomized.dof_damping
  # (the armature, randomized the same way, is scaled)
  assert not jnp.all(randomized.dof_armature[:, 6:] == 0.01)
  assert not jnp.all(randomized.dof_damping[:, ANKLE_JOINT_IDS.ravel()] == 2.0)
