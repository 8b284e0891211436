# source: https://github.com/asantini29/phentax/blob/978de2a322834b592e792f79b0ae041cafe8e02a/src/phentax/utils/coarse_graining.py
#   (estimate_adaptive_steps and estimate_adaptive_steps_from_T, which IMRPhenomTHM's
#   initial_processing calls unconditionally; reported in
#   https://github.com/asantini29/phentax/pull/28 "guard jnp calls and assertions against
#   JIT tracing in initial_processing": "estimate_adaptive_steps_from_T() ... internally
#   calls jnp.* and int(), which fails during tracing", "even with static T and delta_t")
# observed on jax 0.10.2 CPU: eagerly the estimate is a Python int; under jit, with T and
#   delta_t static Python floats, jnp.asarray/jnp.ceil of them are tracers, so
#   int(jnp.ceil(...)) in estimate_adaptive_steps raises ConcretizationTypeError. The second
#   int(jnp.ceil(...)) on the next line repeats the bug (never reached, tolerated). The PR only skips the call
#   while tracing. Kept verbatim: SCALE_FACTOR, BUCKET_SIZE, leading_order_factor,
#   estimate_adaptive_steps, estimate_adaptive_steps_from_T (module docstring cut).
#   Added: the imports; the __main__ block, whose jitted time_grid_sizes stands in for the
#   grid-size lines of IMRPhenomTHM.initial_processing as PR 28 leaves them
#   (math.ceil(T / delta_t), then estimate_adaptive_steps_from_T), with YRSID_SI and the
#   default observation time of IMRPhenomTHM.__init__; jax.Array for jaxtyping.Array.
# gap: omnistaging
import math
from functools import partial

import jax

jax.config.update("jax_enable_x64", True)  # Use double precision for time calculations
import jax.numpy as jnp
from jax import Array

SCALE_FACTOR = (
    12.0  # This is a tunable parameter that controls the overall density of the grid.
)
BUCKET_SIZE = (
    2000  # Number of steps per bucket for JIT cache friendliness.  Must be >= 1.
)


def leading_order_factor(eta: float | Array) -> float | Array:
    """
    Compute the leading-order (positive) factor C in the adaptive time step formula.

    Parameters
    ----------
    eta : float | Array
        Symmetric mass ratio.

    Returns
    -------
    float | Array
        Leading-order factor C such that :math:`\\Delta t = C \\cdot |t|^{3/8}` in the inspiral.
    """
    return (2.0 * jnp.pi * 4.0 / SCALE_FACTOR) * jnp.power(eta / 5.0, 3.0 / 8.0)


def leading_order_delta_t(eta: float | Array, t: float | Array) -> float | Array:
    """
    Compute adaptive time step at leading order in omega.

    Parameters
    ----------
    eta : float | Array
        Symmetric mass ratio.
    t : float | Array
        Time in units of total mass M.
    Returns
    -------
    float | Array
        Leading order time step delta_t = 1 / (10 * f_LO), where f_LO is the leading
        order GW frequency at time t.
    """

    C = leading_order_factor(eta)
    return C * jnp.power(jnp.abs(t), 3.0 / 8.0)


def estimate_adaptive_steps(
    eta: float | Array, tmin: float | Array, tmax: float | Array
) -> int:
    """
    Estimate the number of adaptive grid steps needed across a batch of binaries.

    Uses the analytical solution of the leading-order ODE to predict the
    total number of grid points, then returns a value rounded up to the
    nearest BUCKET_SIZE for JIT cache friendliness.

    The estimate accounts for the three-region grid structure:

    1. **Post-merger** (tmax → 0): coarse uniform with step ``C_post``.
    2. **Fine uniform** (0 → ≈ −1): step ``C``.
    3. **Adaptive** (≈ −1 → tmin): step ``C |t|^{3/8}``.

    Parameters
    ----------
    eta : float | Array
        Symmetric mass ratio(s).
    tmin : float | Array
        Minimum time(s) (start of the grid).
    tmax : float | Array
        Maximum time(s) (end of the grid).

    Returns
    -------
    int
        Estimated number of required steps (with safety margin), rounded
        up to the nearest BUCKET_SIZE.
    """
    eta = jnp.atleast_1d(jnp.asarray(eta, dtype=jnp.float64))
    tmin = jnp.atleast_1d(jnp.asarray(tmin, dtype=jnp.float64))
    tmax = jnp.atleast_1d(jnp.asarray(tmax, dtype=jnp.float64))

    C = leading_order_factor(eta)
    C_post = jnp.maximum(1.0, C)

    # Post-merger region: tmax → 0 with step C_post (+1 for the t=0 node)
    N_post = jnp.where(tmax > 0.0, jnp.ceil(tmax / C_post), 0.0) + 1.0

    # Fine uniform region: 0 → ≈ −1 with step C
    N_fine = jnp.ceil(1.0 / C)

    # Adaptive region: ODE solution from u_fine_end to |tmin|
    u_fine_end = N_fine * C
    N_adaptive = jnp.where(
        -tmin > u_fine_end,
        jnp.maximum(
            (jnp.power(-tmin, 5.0 / 8.0) - jnp.power(u_fine_end, 5.0 / 8.0))
            / (5.0 * C / 8.0),
            0.0,
        ),
        0.0,
    )

    # Take max across the batch, add safety margin, round up to nearest BUCKET_SIZE
    N_total = int(jnp.ceil(jnp.max(N_post + N_fine + N_adaptive) * 1.2)) + 200  # expect: JIT401
    N_total = int(jnp.ceil(N_total / BUCKET_SIZE) * BUCKET_SIZE)  # tolerate: JIT401
    return max(N_total, BUCKET_SIZE)  # at least BUCKET_SIZE


def estimate_adaptive_steps_from_T(T: float, delta_t: float = 15.0) -> int:
    """
    Estimate adaptive grid size from observation time and time step only.

    Uses worst-case symmetric mass ratio (eta = 0.25, equal mass) to
    guarantee the grid is large enough for any binary.  The result depends
    only on user-controlled quantities, so it can be computed once at
    init time without causing JIT recompilation.

    Parameters
    ----------
    T : float
        Total observation time in seconds.
    delta_t : float, default 15.0
        Time step in seconds.

    Returns
    -------
    int
        Estimated number of required steps, rounded up to the nearest
        BUCKET_SIZE for JIT-cache friendliness.
    """
    # Worst-case: equal mass eta=0.25 gives the densest adaptive grid.
    # tmin ~ -T/delta_t (rough conversion to mass-scaled time), tmax ~ 0
    # This is conservative because the actual mass-scaled time span is
    # almost always shorter.
    eta_worst = 0.25
    num_steps = T / delta_t
    # Use the same formula as estimate_adaptive_steps but with
    # conservative bounds derived from num_steps.
    # In mass-scaled units, the grid spans roughly [-num_steps * delta_t_M, 0]
    # where delta_t_M ~ delta_t / M_total_seconds.  For the purpose of
    # bounding, we use num_steps directly as a proxy for |tmin|.
    # The uniform grid would need num_steps points; the adaptive grid is
    # always sparser, so num_steps is a safe upper bound.
    return estimate_adaptive_steps(eta_worst, -num_steps, 0.0)


if __name__ == "__main__":
    YRSID_SI = 31558149.763545603
    T = 3.0 / 12.0 * YRSID_SI  # IMRPhenomTHM's default observation time
    delta_t = 15.0

    # outside jit the estimate is a concrete Python int
    assert isinstance(estimate_adaptive_steps_from_T(T, delta_t), int)

    @partial(jax.jit, static_argnames=("T", "delta_t"))
    def time_grid_sizes(chi1z, T, delta_t):
        # stand-in for the grid-size lines of IMRPhenomTHM.initial_processing
        num_steps = math.ceil(T / delta_t)
        new_max = estimate_adaptive_steps_from_T(T, delta_t)
        return chi1z, num_steps, new_max

    time_grid_sizes(jnp.array([0.3]), T=T, delta_t=delta_t)
