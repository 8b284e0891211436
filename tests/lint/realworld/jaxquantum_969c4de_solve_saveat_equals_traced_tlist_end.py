# source: https://github.com/EQuS/jaxquantum/commit/969c4de2b57c98fb47637670b338e3b70716b905
#   (jaxquantum, a JAX library for quantum-circuit and open-system simulation; this commit,
#   "removing conditional logic on content of arrays, as this fails when inputs are traced",
#   changes `saveat_tlist == tlist[-1]` in solve(); the code here is
#   jaxquantum/core/solvers.py at its parent 339e33078121464950b196d0b84070c8395f0645)
# observed on jax 0.10.2 CPU: jitting a Schroedinger-equation solve over its time grid with
#   one save time raises TracerBoolConversionError at the `if` of solve(): with a single
#   save time, `saveat_tlist == tlist[-1]` compares against the traced end of tlist and
#   gives a traced bool[1]. (The commit's `saveat_tlist == -1` still fails under jit when
#   the save times are a jnp array: comparing it is a traced operation too.)
# gap: omnistaging
# added: the imports used here; SolverOptions, CustomProgressMeter, solve and _sesolve_data
#   as in the file (mesolve, sesolve, propagator and the Qarray wrappers left out); the
#   __main__ block: a Rabi-drive qubit Hamiltonian and a jitted function of the time grid
#   that saves the state at t = 1 only.
from diffrax import (
    diffeqsolve,
    ODETerm,
    SaveAt,
    PIDController,
    TqdmProgressMeter,
    NoProgressMeter,
)
from flax import struct
from jax import Array
from typing import Callable, Optional, Union
import diffrax
import jax
import jax.numpy as jnp
import warnings
import tqdm


@struct.dataclass
class SolverOptions:
    progress_meter: bool = struct.field(pytree_node=False)
    solver: str = (struct.field(pytree_node=False),)
    max_steps: int = (struct.field(pytree_node=False),)
    rtol: float = (struct.field(pytree_node=False),)
    atol: float = (struct.field(pytree_node=False),)

    @classmethod
    def create(
        cls,
        progress_meter: bool = True,
        solver: str = "Tsit5",
        max_steps: int = 100_000,
        rtol: float = 1e-7,
        atol: float = 1e-9,
    ):
        return cls(progress_meter, solver, max_steps, rtol, atol)


class CustomProgressMeter(TqdmProgressMeter):
    @staticmethod
    def _init_bar() -> tqdm.tqdm:
        bar_format = "{desc}: {percentage:3.0f}% |{bar}| [{elapsed}<{remaining}, {rate_fmt}{postfix}]"
        return tqdm.tqdm(
            total=100, bar_format=bar_format, unit="%", colour="MAGENTA", ascii="░▒█"
        )


def solve(f, ρ0, tlist, saveat_tlist, args, solver_options: Optional[
    SolverOptions] = None):
    """Gets teh desired solver from diffrax.

    Args:
        solver_options: dictionary with solver options

    Returns:
        solution
    """

    # f and ts
    term = ODETerm(f)
    if saveat_tlist.shape[0] == 1 and saveat_tlist == tlist[-1]:  # expect: JIT101  # tolerate: JIT103
        saveat = SaveAt(t1=True)
    else:
        saveat = SaveAt(ts=saveat_tlist)

    # solver
    solver_options = solver_options or SolverOptions.create()

    solver_name = solver_options.solver
    solver = getattr(diffrax, solver_name)()
    stepsize_controller = PIDController(rtol=solver_options.rtol, atol=solver_options.atol)

    # solve!
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore",
                                message="Complex dtype support in Diffrax",
                                category=UserWarning)  # NOTE: suppresses complex dtype warning in diffrax
        sol = diffeqsolve(
            term,
            solver,
            t0=tlist[0],
            t1=tlist[-1],
            dt0=tlist[1] - tlist[0],
            y0=ρ0,
            saveat=saveat,
            stepsize_controller=stepsize_controller,
            args=args,
            max_steps=solver_options.max_steps,
            progress_meter=CustomProgressMeter()
            if solver_options.progress_meter
            else NoProgressMeter(),
        )

    return sol


def _sesolve_data(
    H: Callable[[float], Array],
    rho0: Array,
    tlist: Array,
    saveat_tlist: Array,
    solver_options: Optional[SolverOptions] = None,
):
    """Schrödinger Equation solver.

    Args:
        H: time dependent Hamiltonian function or time-independent Array.
        rho0: initial state, must be a density matrix. For statevector evolution, please use sesolve.
        tlist: time list
        solver_options: SolverOptions with solver options

    Returns:
        list of states
    """

    ψ = rho0

    def f(t: float, ψₜ: Array, _):
        H_val = H(t)  # type: ignore

        ψₜ_dot = -1j * (H_val @ ψₜ)

        return ψₜ_dot

    ψ_test = f(0, ψ, None)
    ψ = jnp.resize(ψ, ψ_test.shape)  # ensure correct shape

    sol = solve(f, ψ, tlist, saveat_tlist, None, solver_options=solver_options)
    return sol.ys


if __name__ == "__main__":
    sigma_x = jnp.array([[0.0, 1.0], [1.0, 0.0]], dtype=jnp.complex64)
    H_data = lambda t: 0.5 * jnp.pi * sigma_x
    psi0 = jnp.array([[1.0], [0.0]], dtype=jnp.complex64)
    save_at_end = jnp.array([1.0])

    @jax.jit
    def final_state(tlist):
        return _sesolve_data(H_data, psi0, tlist, save_at_end,
                             solver_options=SolverOptions.create(progress_meter=False))

    print(final_state(jnp.linspace(0.0, 1.0, 11)))
