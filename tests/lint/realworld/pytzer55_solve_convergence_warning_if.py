# source: https://github.com/mvdh7/pytzer/pull/55 (pytzer's _solve before the PR made it
#   jittable, https://github.com/mvdh7/pytzer/blob/fb96d262a644e2a04320649c968d04fab65496c7/pytzer/equilibrate/solver.py;
#   the docstring is shortened; `library`, get_stoich_adjust and get_thermo_adjust are
#   stand-ins for pytzer's chemistry (one total, one equilibrium, adjustments that halve the
#   distance to a target), and the module level jits _solve as its docstring invites)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at the first convergence check,
#   `if np.any(np.abs(stoich_adjust) > warn_cutoff):`: under jit the adjustment is traced.
# gap: types
import types
import warnings
from collections import namedtuple

import jax
from jax import numpy as np

library = types.SimpleNamespace(  # stand-in for pytzer.model.library
    totals_all=("Na",),
    equilibria_all=("H2O",),
    equilibria={"H2O": lambda temperature: -32.0 + 0.0 * temperature},
    get_stoich_targets=lambda totals: np.array([totals["Na"]]),
    stoich_init=lambda totals: np.array([1.0]),
)


@jax.jit
def get_stoich_adjust(stoich, totals, thermo, stoich_targets):
    return (stoich_targets - stoich) / 2


@jax.jit
def get_thermo_adjust(thermo, totals, temperature, pressure, stoich, thermo_targets):
    return (thermo_targets - thermo) / 2


SolveResult = namedtuple("SolveResult", ["solutes", "lnks_constants"])
SolveResultRaw = namedtuple(
    "SolveResultRaw", ["stoich", "thermo", "stoich_adjust", "thermo_adjust"]
)
SolveStoichResultRaw = namedtuple("SolveStoichResultRaw", ["stoich", "stoich_adjust"])


def _solve(
    totals,
    temperature,
    pressure,
    stoich=None,
    thermo=None,
    iter_thermo=6,
    iter_stoich_per_thermo=3,
    verbose=False,
    warn_cutoff=1e-8,
):
    """Solve for equilibrium.

    This function is not JIT-ed by default, because it takes a lot longer to compile,
    but you can JIT it yourself to get a ~2x speedup.
    """
    # Solver targets---known from the start
    totals = totals.copy()
    totals.update({t: 0.0 for t in library.totals_all if t not in totals})
    stoich_targets = library.get_stoich_targets(totals)
    thermo_targets = np.array(
        [library.equilibria[eq](temperature) for eq in library.equilibria_all]
    )  # these are ln(k)
    if stoich is None:
        stoich = library.stoich_init(totals)
    if thermo is None:
        thermo = thermo_targets.copy()
    # Solve!
    for _t in range(iter_thermo):
        for _s in range(iter_stoich_per_thermo):
            stoich_adjust = get_stoich_adjust(stoich, totals, thermo, stoich_targets)
            if verbose:
                print("STOICH", _t + 1, _s + 1)
                print(stoich_adjust)
            stoich = stoich + stoich_adjust
        thermo_adjust = get_thermo_adjust(
            thermo, totals, temperature, pressure, stoich, thermo_targets
        )
        if verbose:
            print("THERMO", _t + 1)
            print(thermo_adjust)
        thermo = thermo + thermo_adjust
    if np.any(np.abs(stoich_adjust) > warn_cutoff):  # expect: JIT101
        warnings.warn(
            "Solver did not converge below `warn_cutoff` - "
            + "try increasing `iter_stoich_per_thermo`."
        )
    if np.any(np.abs(thermo_adjust) > warn_cutoff):  # tolerate: JIT101
        warnings.warn(
            "Solver did not converge below `warn_cutoff` - "
            + "try increasing `iter_thermo`."
        )
    return SolveResultRaw(stoich, thermo, stoich_adjust, thermo_adjust)


result = jax.jit(_solve)({"Na": 0.5}, 298.15, 10.1325)
