# source: https://github.com/cdelv/JaxDEM/blob/e25d61d27632a5cf3c716ef8ba05a7cb11f0ae69/jaxdem/utils/thermal.py (scale_to_temperature and the kinetic-energy helpers it calls, before the fix https://github.com/cdelv/JaxDEM/commit/75ef7f70fe0c6bef4f6bbf9a4b13cf3ffcaa7152 "fixed bugs in the thermal api which prevented use in jit-compiled functions"); the caller is do_temp/apply_rescale from https://github.com/cdelv/JaxDEM/blob/fa00c6c8697daf07e82cf0d934dc619a927c077a/jaxdem/utils/dynamicsRoutines.py, committed 51 s after the fix
# observed on jax 0.10.2 CPU: scale_to_temperature assigns state.vel / state.angVel on the State object the lax.cond branch closed over, so the caller's state keeps tracers of the branch trace; the rescale routine then fails with UnexpectedTracerError when the other branch returns that state
# gap: cross-module
# added: a small stand-in State (the real one has more fields and a quaternion; a 2D state does not touch it), _rescale_temperature (the temperature part of apply_rescale, with schedule_T replaced by a given T_set), imports and the __main__ block; docstrings shortened
from dataclasses import dataclass, replace
from functools import partial
from typing import Optional

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


def scale_to_temperature(
    state: State,
    target_temperature: float,
    can_rotate: bool,
    subtract_drift: bool,
    k_B: Optional[float] = 1.0,
) -> State:
    """
    Scale the velocities of a state to a desired temperature
    state: State
    target_temperature: float - desired target temperature
    can_rotate: bool - whether to include the rigid body rotations
    subtract_drift: bool - whether to remove center of mass drift (usually only relevant for small systems)
    k_B: Optional[float] - boltzmanns constant, default is 1.0
    """
    # subtract drift
    state.vel -= jnp.mean(state.vel, axis=-2) * subtract_drift  # expect: JIT202
    # compute temperature
    temperature = compute_temperature(state, can_rotate, subtract_drift, k_B)
    # scale to temperature
    scale = jnp.sqrt(target_temperature / temperature)
    state.vel *= scale  # expect: JIT202
    state.angVel *= scale * can_rotate  # expect: JIT202
    return state


def _zero_velocities(state: "State", can_rotate: bool) -> "State":
    # Use replace to avoid in-place mutation surprises.
    return replace(
        state,
        vel=jnp.zeros_like(state.vel),
        angVel=jnp.zeros_like(state.angVel) * can_rotate,
    )


@partial(jax.jit, static_argnames=("temp_enabled", "can_rotate", "subtract_drift", "k_B"))
def _rescale_temperature(st2, T_set, *, temp_enabled, can_rotate, subtract_drift, k_B):
    # --- temperature rescaling ---
    def do_temp(_):
        # Guard: if target is 0, avoid 0/0 in scale_to_temperature; just zero velocities.
        return jax.lax.cond(
            T_set <= 0.0,
            lambda __: _zero_velocities(st2, can_rotate),
            lambda __: scale_to_temperature(st2, T_set, can_rotate, subtract_drift, k_B=k_B),
            operand=None,
        )

    st3 = jax.lax.cond(temp_enabled, do_temp, lambda _: st2, operand=None)
    return st3


def _make_state(n=6, dim=2):
    k1, k2 = jax.random.split(jax.random.key(0))
    return State(
        vel=jax.random.normal(k1, (n, dim)),
        angVel=jax.random.normal(k2, (n, 1)),
        mass=jnp.ones(n),
        inertia=jnp.ones((n, 1)),
        clump_ID=jnp.arange(n),
        fixed=jnp.zeros(n, dtype=bool),
    )


if __name__ == "__main__":
    import sys

    scale_fn = scale_to_temperature
    write_lines = [i for i, ln in enumerate(open(__file__).read().splitlines(), 1)
                   if ("# exp" + "ect: JIT202") in ln]
    assert len(write_lines) == 3

    # 1) the calling pattern of dynamicsRoutines: the lax.cond branch closes over
    #    a State built outside it; record which lines write tracers onto it.
    state = _make_state()
    writes = []
    _orig_setattr = State.__setattr__

    def _logging_setattr(self, name, value):
        if self is state:
            writes.append((sys._getframe(1).f_lineno, name, isinstance(value, jax.core.Tracer)))
        _orig_setattr(self, name, value)

    State.__setattr__ = _logging_setattr
    jax.lax.cond(
        jnp.asarray(1.0) <= 0.0,
        lambda __: _zero_velocities(state, True),
        lambda __: scale_fn(state, 1.0, True, False),
        operand=None,
    )
    State.__setattr__ = _orig_setattr
    traced_write_lines = sorted({ln for ln, _, is_tracer in writes if is_tracer})
    assert traced_write_lines == write_lines, (traced_write_lines, write_lines)
    # the caller's state now holds tracers of the finished branch trace
    assert isinstance(state.vel, jax.core.Tracer)
    assert isinstance(state.angVel, jax.core.Tracer)

    # 2) the jitted rescale routine (both cond branches traced) fails
    try:
        _rescale_temperature(_make_state(), jnp.asarray(1.0), temp_enabled=True,
                             can_rotate=True, subtract_drift=False, k_B=1.0)
    except jax.errors.UnexpectedTracerError as e:
        print("UnexpectedTracerError:", str(e).splitlines()[0][:100])
    else:
        raise AssertionError("expected an UnexpectedTracerError")
    print("tracer writes on the closed-over State at lines", traced_write_lines)

# observed: line 123 writes a branch tracer into the caller's state.vel (drift subtraction)
# observed: line 128 writes a branch tracer into the caller's state.vel, which escapes the lax.cond trace
# observed: line 129 writes a branch tracer into the caller's state.angVel, which escapes; the jitted _rescale_temperature then raises UnexpectedTracerError
