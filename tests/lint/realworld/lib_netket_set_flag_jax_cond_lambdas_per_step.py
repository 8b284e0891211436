# source: https://github.com/netket/netket/blob/aafb876ccf4c8e7d734638ea8c02e6c9660cf042/netket/experimental/dynamics/_utils.py
#   (set_flag_jax and propose_time_step before commit 1ca708a2 "Fix jitting in
#   _step_adaptive (#2045)": "In the past, _step_adaptive was jitted, which was later
#   removed. However, calls to jax.lax.cond remained, which, because it used lambdas, was
#   recompiled at each call. This leads to excessive memory usage, see #2043")
# observed on jax 0.10.2 CPU: outside jit, every call of set_flag_jax hands lax.cond two
#   new lambdas, so line 60 compiles a new program at every integrator step. Kept
#   verbatim: IntegratorFlags (from _integrator_state.py, message table dropped),
#   propose_time_step, set_flag_jax, and the dt checks of Integrator._step_adaptive from
#   "Propose the next time step" to the acceptance test. Stand-ins (netket is not
#   installed): `adaptive_checks` wraps those checks as a function of the values
#   _step_adaptive computes before them (the solver step and scaled error are dropped), and
#   the __main__ loop stands in for the integrator calling _step_adaptive once per step.
# gap: per-call-recompile
from enum import IntFlag, auto

import jax
import jax.numpy as jnp

LimitsDType = tuple[float | None, float | None]


class IntegratorFlags(IntFlag):
    """
    Enum class containing flags for signaling solver information from within `jax.jit`ed code.
    """

    NONE = 0
    INFO_STEP_ACCEPTED = auto()
    WARN_MIN_DT = auto()
    WARN_MAX_DT = auto()
    ERROR_INVALID_DT = auto()

    WARNINGS_FLAGS = WARN_MIN_DT | WARN_MAX_DT
    ERROR_FLAGS = ERROR_INVALID_DT


def propose_time_step(
    dt: float, scaled_error: float, error_order: int, limits: LimitsDType
) -> float:
    """
    Propose an updated dt based on the scheme suggested in Numerical Recipes, 3rd ed.
    """
    SAFETY_FACTOR = 0.95
    err_exponent = -1.0 / (1 + error_order)
    return jnp.clip(
        dt * SAFETY_FACTOR * scaled_error**err_exponent,
        limits[0],
        limits[1],
    )


def set_flag_jax(condition, flags, flag):
    """
    If `condition` is true, `flags` is updated by setting `flag` to 1.
    This is equivalent to the following code, but compatible with jax.jit:
        if condition:
            flags |= flag
    """
    return jax.lax.cond(  # expect: JIT301
        condition,
        lambda x: x | flag,
        lambda x: x,
        flags,
    )


def adaptive_checks(state_dt, actual_dt, scaled_err, error_order, dt_limits):
    # stand-in wrapper for the checks of Integrator._step_adaptive
    flags = IntegratorFlags(0)

    # Propose the next time step, but limited within [0.1 dt, 5 dt] and potential
    # global limits in dt_limits. Not used when actual_dt < state.dt (i.e., the
    # integrator is doing a smaller step to hit a specific stop).
    dt_min, dt_max = dt_limits
    next_dt = propose_time_step(
        actual_dt,
        scaled_err,
        error_order,
        limits=(
            (jnp.maximum(0.1 * state_dt, dt_min) if dt_min else 0.1 * state_dt),
            (jnp.minimum(5.0 * state_dt, dt_max) if dt_max else 5.0 * state_dt),
        ),
    )

    # check if next dt is NaN
    flags = set_flag_jax(
        ~jnp.isfinite(next_dt), flags, IntegratorFlags.ERROR_INVALID_DT
    )

    # check if we are at lower bound for dt
    if dt_min is not None:
        is_at_min_dt = jnp.isclose(next_dt, dt_min)
        flags = set_flag_jax(is_at_min_dt, flags, IntegratorFlags.WARN_MIN_DT)
    else:
        is_at_min_dt = False
    if dt_max is not None:
        is_at_max_dt = jnp.isclose(next_dt, dt_max)
        flags = set_flag_jax(is_at_max_dt, flags, IntegratorFlags.WARN_MAX_DT)

    # accept if error is within tolerances or we are already at the minimal step
    accept_step = jnp.logical_or(scaled_err < 1.0, is_at_min_dt)
    return next_dt, flags, accept_step


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None)

    dt = jnp.float32(0.01)
    per_step = []
    for step in range(6):
        before = len(compiles)
        scaled_err = jnp.float32(0.5 + 0.1 * step)
        dt, flags, accept = adaptive_checks(dt, dt, scaled_err, 4, (1e-4, 1.0))
        per_step.append(len(compiles) - before)
    # observed: line 60 compiles anew at every step (three calls, three compiles), long after the first
    assert all(n >= 3 for n in per_step[2:]), per_step
