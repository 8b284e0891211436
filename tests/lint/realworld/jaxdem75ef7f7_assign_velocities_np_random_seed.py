# source: https://github.com/cdelv/JaxDEM/blob/e25d61d27632a5cf3c716ef8ba05a7cb11f0ae69/jaxdem/utils/thermal.py (_assign_random_velocities / set_temperature and the helpers they call); fixed in https://github.com/cdelv/JaxDEM/commit/75ef7f70fe0c6bef4f6bbf9a4b13cf3ffcaa7152 "fixed bugs in the thermal api which prevented use in jit-compiled functions" (the default seed became 0 and the np.random call was removed; the jitted caller in dynamicsRoutines.py notes "IMPORTANT: must not be None inside jit")
# observed on jax 0.10.2 CPU: with seed=None, np.random.randint runs once while set_temperature is traced, so every call of a jitted routine that uses set_temperature assigns exactly the same "random" velocities; eager calls draw new ones
# gap: other
# added: a small stand-in State (the real one has more fields and a quaternion; a 2D state does not touch it), imports, the jitted caller and the __main__ block; docstrings shortened
from dataclasses import dataclass
from functools import partial
from typing import Optional

import numpy as np
import jax
import jax.numpy as jnp


@jax.tree_util.register_dataclass
@dataclass
class State:
    vel: jax.Array
    angVel: jax.Array
    mass: jax.Array
    inertia: jax.Array
    clump_ID: jax.Array
    fixed: jax.Array

    @property
    def N(self) -> int:
        return self.vel.shape[-2]

    @property
    def dim(self) -> int:
        return self.vel.shape[-1]


@jax.jit
@partial(
    jax.named_call, name="thermal.compute_translational_kinetic_energy_per_particle"
)
def compute_translational_kinetic_energy_per_particle(state: State) -> jax.Array:
    """compute the translational kinetic energy per particle."""
    count = jnp.bincount(state.clump_ID, length=state.N)[state.clump_ID]
    weight = state.mass / count
    return 0.5 * weight * jnp.sum(state.vel * state.vel, axis=-1)


@jax.jit
@partial(jax.named_call, name="thermal.compute_rotational_kinetic_energy_per_particle")
def compute_rotational_kinetic_energy_per_particle(state: State) -> jax.Array:
    """compute the rotational kinetic energy per particle."""
    count = jnp.bincount(state.clump_ID, length=state.N)[state.clump_ID]
    if state.dim == 2:
        w_body = state.angVel
    else:
        w_body = state.q.rotate_back(state.q, state.angVel)  # to body frame
    return 0.5 * jnp.vecdot(w_body, state.inertia * w_body) / count


@jax.jit
@partial(jax.named_call, name="thermal.compute_translational_kinetic_energy")
def compute_translational_kinetic_energy(state: State) -> jax.Array:
    """compute the total translational kinetic energy of the system."""
    return jnp.sum(compute_translational_kinetic_energy_per_particle(state))


@jax.jit
@partial(jax.named_call, name="thermal.compute_rotational_kinetic_energy")
def compute_rotational_kinetic_energy(state: State) -> jax.Array:
    """compute the total rotational kinetic energy of the system."""
    return jnp.sum(compute_rotational_kinetic_energy_per_particle(state))


def count_dynamic_dofs(state: State, can_rotate: bool, subtract_drift: bool):
    """
    Count the number of degrees of freedom for the dynamics
    state: State
    can_rotate: bool - whether to include rigid body rotations
    subtract_drift: bool - whether to include center of mass drift (usually only relevant for small systems)
    """
    counts = jnp.bincount(state.clump_ID, length=state.N)
    fixed_counts = jnp.bincount(
        state.clump_ID, weights=state.fixed.astype(jnp.int32), length=state.N
    )
    free_count = jnp.sum((counts > 0) & (fixed_counts == 0))
    n_dof_v = (free_count - subtract_drift) * state.vel.shape[-1]
    n_dof_w = free_count * state.angVel.shape[-1] * can_rotate
    n_dof = n_dof_v + n_dof_w
    return n_dof, n_dof_v, n_dof_w


def compute_temperature(
    state: State, can_rotate: bool, subtract_drift: bool, k_B: Optional[float] = 1.0
) -> float:
    """
    compute the temperature for a state
    state: State
    can_rotate: bool - whether to include the rigid body rotations
    subtract_drift: bool - whether to remove center of mass drift (usually only relevant for small systems)
    k_B: Optional[float] - boltzmanns constant, default is 1.0
    """
    n_dof, _, _ = count_dynamic_dofs(state, can_rotate, subtract_drift)
    ke_t = compute_translational_kinetic_energy(state)
    if can_rotate:
        ke_r = compute_rotational_kinetic_energy(state)
    else:
        ke_r = 0.0
    ke = ke_t + ke_r
    return 2 * ke / (k_B * n_dof)


def _assign_random_velocities(
    state: State, subtract_drift: bool, seed: Optional[int] = None
) -> State:
    """
    Assign random translational and angular velocities
    state: State
    subtract_drift: bool - whether to remove center of mass drift
    seed: Optional[int] - rng seed
    """
    if seed is None:
        seed = np.random.randint(0, 1e9)  # expect: JIT204
    key = jax.random.PRNGKey(seed)
    v_k, w_k = jax.random.split(key, 2)
    counts = jnp.bincount(state.clump_ID, length=state.N)
    exists = counts > 0
    fixed_counts = jnp.bincount(
        state.clump_ID, weights=state.fixed.astype(jnp.int32), length=state.N
    )
    free_mask = (fixed_counts == 0) & exists
    v_clump = jax.random.normal(v_k, (state.N, state.dim)) * free_mask[:, None]
    if subtract_drift:
        num_clumps = jnp.sum(exists)
        v_clump_mean = jnp.sum(v_clump, axis=0) / jnp.maximum(num_clumps, 1)
        v_clump -= v_clump_mean * exists[:, None]
    state.vel = v_clump[state.clump_ID]
    w_clump = (
        jax.random.normal(w_k, (state.N, state.angVel.shape[-1])) * free_mask[:, None]
    )  # body frame
    w = w_clump[state.clump_ID]
    if state.dim == 2:
        state.angVel = w
    else:  # rotate to lab frame
        state.angVel = state.q.rotate(state.q, w)
    return state


def set_temperature(
    state: State,
    target_temperature: float,
    can_rotate: bool,
    subtract_drift: bool,
    seed: Optional[int] = None,
    k_B: Optional[float] = 1.0,
) -> State:
    """
    Randomize the velocities of a state according to a desired temperature
    state: State
    target_temperature: float - desired target temperature
    can_rotate: bool - whether to include the rigid body rotations
    subtract_drift: bool - whether to remove center of mass drift (usually only relevant for small systems)
    seed: Optional[int] - rng seed
    k_B: Optional[float] - boltzmanns constant, default is 1.0
    """
    # assign random
    state = _assign_random_velocities(state, subtract_drift, seed)
    # compute temperature
    temperature = compute_temperature(state, can_rotate, subtract_drift, k_B)
    # scale to temperature
    scale = jnp.sqrt(target_temperature / temperature)
    state.vel *= scale
    state.angVel *= scale * can_rotate
    return state


def _make_state(n=6, dim=2):
    return State(
        vel=jnp.zeros((n, dim)),
        angVel=jnp.zeros((n, 1)),
        mass=jnp.ones(n),
        inertia=jnp.ones((n, 1)),
        clump_ID=jnp.arange(n),
        fixed=jnp.zeros(n, dtype=bool),
    )


@jax.jit
def reheat(state, target_temperature):
    return set_temperature(state, target_temperature, True, True)


if __name__ == "__main__":
    # eager: every call draws a fresh seed
    a = set_temperature(_make_state(), 1.0, True, True)
    b = set_temperature(_make_state(), 1.0, True, True)
    assert not np.allclose(a.vel, b.vel)

    # jitted: the seed was fixed when reheat was traced
    draws = [reheat(_make_state(), jnp.asarray(t)) for t in (1.0, 1.0, 1.0)]
    assert all(np.array_equal(d.vel, draws[0].vel) for d in draws[1:])
    assert all(np.array_equal(d.angVel, draws[0].angVel) for d in draws[1:])
    print("jitted reheat gives identical velocities on every call:", draws[0].vel[0])

# observed: line 118 np.random.randint runs at trace time only, so three calls of the jitted reheat give identical velocities (eager calls differ)
