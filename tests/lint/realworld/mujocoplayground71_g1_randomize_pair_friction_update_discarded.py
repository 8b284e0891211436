# source: https://github.com/google-deepmind/mujoco_playground/issues/71
#   (foot friction randomization of the G1 humanoid; fixed in 2427913, "Fix foot friction
#   randomization in g1 randomize.py. Fixes #71.", which sets both contact pairs in one
#   update, `model.pair_friction.at[0:2, 0:2].set(friction)`). The code is
#   mujoco_playground/_src/locomotion/g1/randomize.py at 609168a (2427913^).
# observed on jax 0.10.2 CPU: `model.pair_friction.at[0, 0:2].set(friction)` builds an
#   updated copy that is never read: the next line starts again from model.pair_friction
#   and sets only pair 1, so in every randomized model the first foot-floor contact pair
#   keeps its nominal friction. Kept as mujoco_playground wrote it: domain_randomize. Added:
#   mujoco is not installed, so mjx.Model is a stand-in pytree with the five fields
#   domain_randomize reads and mjx's `tree_replace`, sized like the G1 (35 dofs, 30 bodies,
#   two foot-floor contact pairs); a __main__ block randomizes four models, calling
#   domain_randomize as brax's DomainRandomizationVmapWrapper does (its rand_dynamics is
#   vmapped).
# gap: other
import dataclasses

import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class Model:
  # stand-in for mujoco.mjx.Model: the fields domain_randomize reads
  pair_friction: jax.Array
  dof_frictionloss: jax.Array
  dof_armature: jax.Array
  body_mass: jax.Array
  qpos0: jax.Array
  nbody: int = struct.field(pytree_node=False, default=30)

  def tree_replace(self, params):
    # as mjx.Model.tree_replace, for top-level attributes
    return dataclasses.replace(self, **params)


class mjx:
  Model = Model


FLOOR_GEOM_ID = 0
TORSO_BODY_ID = 16


def domain_randomize(model: mjx.Model, rng: jax.Array):
  @jax.vmap
  def rand_dynamics(rng):
    # Floor / foot friction: =U(0.4, 1.0).
    rng, key = jax.random.split(rng)
    friction = jax.random.uniform(key, minval=0.4, maxval=1.0)
    pair_friction = model.pair_friction.at[0, 0:2].set(friction)  # expect: JIT503
    pair_friction = model.pair_friction.at[1, 0:2].set(friction)

    # Scale static friction: *U(0.9, 1.1).
    rng, key = jax.random.split(rng)
    frictionloss = model.dof_frictionloss[6:] * jax.random.uniform(
        key, shape=(29,), minval=0.5, maxval=2.0
    )
    dof_frictionloss = model.dof_frictionloss.at[6:].set(frictionloss)

    # Scale armature: *U(1.0, 1.05).
    rng, key = jax.random.split(rng)
    armature = model.dof_armature[6:] * jax.random.uniform(
        key, shape=(29,), minval=1.0, maxval=1.05
    )
    dof_armature = model.dof_armature.at[6:].set(armature)

    # Scale all link masses: *U(0.9, 1.1).
    rng, key = jax.random.split(rng)
    dmass = jax.random.uniform(
        key, shape=(model.nbody,), minval=0.9, maxval=1.1
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
        + jax.random.uniform(key, shape=(29,), minval=-0.05, maxval=0.05)
    )

    return (
        pair_friction,
        dof_frictionloss,
        dof_armature,
        body_mass,
        qpos0,
    )

  (
      pair_friction,
      frictionloss,
      armature,
      body_mass,
      qpos0,
  ) = rand_dynamics(rng)

  in_axes = jax.tree_util.tree_map(lambda x: None, model)
  in_axes = in_axes.tree_replace({
      "pair_friction": 0,
      "dof_frictionloss": 0,
      "dof_armature": 0,
      "body_mass": 0,
      "qpos0": 0,
  })

  model = model.tree_replace({
      "pair_friction": pair_friction,
      "dof_frictionloss": frictionloss,
      "dof_armature": armature,
      "body_mass": body_mass,
      "qpos0": qpos0,
  })

  return model, in_axes


if __name__ == "__main__":
  model = Model(
      pair_friction=jnp.tile(jnp.array([0.7, 0.7, 0.005, 0.0001, 0.0001]), (2, 1)),
      dof_frictionloss=jnp.full((35,), 0.1),
      dof_armature=jnp.full((35,), 0.01),
      body_mass=jnp.ones((30,)),
      qpos0=jnp.zeros((36,)),
  )
  # called as brax's DomainRandomizationVmapWrapper calls it
  randomized, in_axes = domain_randomize(model, jax.random.split(jax.random.PRNGKey(0), 4))
  # observed: line 52 is discarded: contact pair 0 keeps its nominal friction in every model
  assert jnp.all(randomized.pair_friction[:, 0, 0:2] == 0.7), randomized.pair_friction
  assert not jnp.all(randomized.pair_friction[:, 1, 0:2] == 0.7)
