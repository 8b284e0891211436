# source: https://github.com/netket/netket/blob/1a66e6aebe66d4bff24a6e9abe20e83dd0f51963/netket/experimental/dynamics/_rk_solver.py
#   (general_time_step_adaptive before netket#1024, "JIT-compile the ODE time step functions",
#   which replaced both `or`s with jnp.logical_or / the accepted flag)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at `accept_step = scaled_err < 1.0 or
#   is_at_min_dt`: under jit the scaled error is a tracer and `or` asks for its truth value.
#   The `accept_step or is_at_min_dt` predicate below repeats the bug (never reached).
#   Added: imports; flax.struct.dataclass standing in for netket.utils.struct.dataclass; a
#   two-field stand-in for nk.utils.KahanSum; stand-ins for nk.jax.tree_size and mpi_all_jax
#   (one process); an embedded Euler/Heun step_fn; and the jit the fixing commit enables
#   (`# @partial(jax.jit, static_argnames=[...])` above the function, here applied in
#   __main__ with the callables and limits static). Unused helpers (norms other than the
#   euclidean one, RungeKuttaState.__repr__, SolverFlags.message) are left out.
# gap: other
from enum import IntFlag, auto
from functools import partial
from typing import Callable, Optional, Tuple, Union

import jax
import jax.numpy as jnp
from flax.struct import dataclass

Array = jnp.ndarray
PyTree = object


@dataclass
class KahanSum:  # stand-in for nk.utils.KahanSum
    value: Array

    def __add__(self, other):
        return KahanSum(self.value + other)


def tree_size(tree):  # stand-in for nk.jax.tree_size
    return sum(x.size for x in jax.tree_util.tree_leaves(tree))


def mpi_all_jax(x):  # stand-in for netket.utils.mpi.primitives.mpi_all_jax, one process
    return x, None


class SolverFlags(IntFlag):
    """
    Enumc class containing flags for signaling solver information from within `jax.jit`ed code.
    """

    NONE = 0
    INFO_STEP_ACCEPTED = auto()
    WARN_MIN_DT = auto()
    WARN_MAX_DT = auto()
    ERROR_INVALID_DT = auto()

    WARNINGS_FLAGS = WARN_MIN_DT | WARN_MAX_DT
    ERROR_FLAGS = ERROR_INVALID_DT


def set_flag_jax(condition, flags, flag):
    """
    If `condition` is true, `flags` is updated by setting `flag` to 1.
    This is equivalent to the following code, but compatible with jax.jit:
        if condition:
            flags |= flag
    """
    return jax.lax.cond(
        condition,
        lambda x: x | flag,
        lambda x: x,
        flags,
    )


def euclidean_norm(x: Union[PyTree, Array]):
    """
    Computes the Euclidean L2 norm of the Array or PyTree intended as a flattened array
    """
    if isinstance(x, jnp.ndarray):
        return jnp.sqrt(jnp.sum(jnp.abs(x) ** 2))
    else:
        return jnp.sqrt(
            jax.tree_util.tree_reduce(
                lambda x, y: x + y,
                jax.tree_util.tree_map(lambda x: jnp.sum(jnp.abs(x) ** 2), x),
            )
        )


@dataclass
class RungeKuttaState:
    step_no: int
    """Number of successful steps since the start of the iteration."""
    step_no_total: int
    """Number of steps since the start of the iteration, including rejected steps."""
    t: KahanSum
    """Current time."""
    y: Array
    """Solution at current time."""
    dt: float
    """Current step size."""
    last_norm: Optional[float] = None
    """Solution norm at previous time step."""
    flags: SolverFlags = SolverFlags.INFO_STEP_ACCEPTED
    """Flags containing information on the solver state."""

    @property
    def accepted(self):
        return SolverFlags.INFO_STEP_ACCEPTED & self.flags != 0


def scaled_error(y, y_err, atol, rtol, *, last_norm_y=None, norm_fn):
    norm_y = norm_fn(y)
    scale = (atol + jnp.maximum(norm_y, last_norm_y) * rtol) / tree_size(y_err)
    return norm_fn(y_err) / scale, norm_y


LimitsType = Tuple[Optional[float], Optional[float]]
"""Type of the dt limits field, having independently optional upper and lower bounds."""


def propose_time_step(
    dt: float, scaled_error: float, error_order: int, limits: LimitsType
):
    """
    Propose an updated dt based on the scheme suggested in Numerical Recipes, 3rd ed.
    """
    SAFETY_FACTOR = 0.95
    err_exponent = -1.0 / (1 + error_order)
    return jnp.clip(
        dt * SAFETY_FACTOR * scaled_error ** err_exponent,
        limits[0],
        limits[1],
    )


# TODO: Allow JITing
# @partial(jax.jit, static_argnames=["step_fn", "norm_fn"])
def general_time_step_adaptive(
    step_fn: Callable,
    rk_state: RungeKuttaState,
    atol: float,
    rtol: float,
    error_order: int,
    norm_fn: Callable,
    max_dt: Optional[float],
    dt_limits: LimitsType,
):
    flags = SolverFlags(0)

    if max_dt is None:
        actual_dt = rk_state.dt
    else:
        actual_dt = jnp.minimum(rk_state.dt, max_dt)

    next_y, y_err = step_fn(rk_state.t.value, actual_dt, rk_state.y)

    scaled_err, norm_y = scaled_error(
        next_y,
        y_err,
        atol,
        rtol,
        last_norm_y=rk_state.last_norm,
        norm_fn=norm_fn,
    )

    # Propose the next time step, but limited within [0.1 dt, 5 dt] and potential
    # global limits in dt_limits. Not used when actual_dt < rk_state.dt (i.e., the
    # integrator is doing a smaller step to hit a specific stop).
    next_dt = propose_time_step(
        actual_dt,
        scaled_err,
        error_order,
        limits=(
            jnp.maximum(0.1 * rk_state.dt, dt_limits[0])
            if dt_limits[0]
            else 0.1 * rk_state.dt,
            jnp.minimum(5.0 * rk_state.dt, dt_limits[1])
            if dt_limits[1]
            else 5.0 * rk_state.dt,
        ),
    )

    # check if next dt is NaN
    flags = set_flag_jax(~jnp.isfinite(next_dt), flags, SolverFlags.ERROR_INVALID_DT)

    # check if we are at lower bound for dt
    if dt_limits[0] is not None:
        is_at_min_dt = jnp.isclose(next_dt, dt_limits[0])
        flags = set_flag_jax(is_at_min_dt, flags, SolverFlags.WARN_MIN_DT)
    else:
        is_at_min_dt = False
    if dt_limits[1] is not None:
        is_at_max_dt = jnp.isclose(next_dt, dt_limits[1])
        flags = set_flag_jax(is_at_max_dt, flags, SolverFlags.WARN_MAX_DT)

    # accept if error is within tolerances or we are already at the minimal step
    accept_step = scaled_err < 1.0 or is_at_min_dt  # expect: JIT103
    # accept the time step iff it is accepted by all MPI processes
    accept_step, _ = mpi_all_jax(accept_step)

    return jax.lax.cond(
        accept_step or is_at_min_dt,  # tolerate: JIT103
        # step accepted
        lambda _: rk_state.replace(
            step_no=rk_state.step_no + 1,
            step_no_total=rk_state.step_no_total + 1,
            y=next_y,
            t=rk_state.t + actual_dt,
            dt=jax.lax.cond(
                actual_dt == rk_state.dt,
                lambda _: next_dt,
                lambda _: rk_state.dt,
                None,
            ),
            last_norm=norm_y,
            flags=flags | SolverFlags.INFO_STEP_ACCEPTED,
        ),
        # step rejected, repeat with lower dt
        lambda _: rk_state.replace(
            step_no_total=rk_state.step_no_total + 1,
            dt=next_dt,
            flags=flags,
        ),
        None,
    )


def heun_euler_step(t, dt, y):  # embedded RK12 step for dy/dt = -y
    k1 = -y
    k2 = -(y + dt * k1)
    y_tp1 = y + dt * 0.5 * (k1 + k2)
    return y_tp1, y_tp1 - (y + dt * k1)


if __name__ == "__main__":
    step = jax.jit(
        general_time_step_adaptive,
        static_argnames=["step_fn", "norm_fn", "error_order", "max_dt", "dt_limits"],
    )
    state = RungeKuttaState(
        step_no=0,
        step_no_total=0,
        t=KahanSum(jnp.asarray(0.0)),
        y=jnp.ones(3),
        dt=jnp.asarray(0.1),
        last_norm=jnp.asarray(0.0),
        flags=jnp.asarray(int(SolverFlags.INFO_STEP_ACCEPTED)),
    )
    step(
        heun_euler_step,
        state,
        atol=1e-3,
        rtol=1e-3,
        error_order=1,
        norm_fn=euclidean_norm,
        max_dt=None,
        dt_limits=(None, 1.0),
    )
