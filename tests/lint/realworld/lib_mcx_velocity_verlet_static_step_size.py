# source: https://github.com/rlouf/mcx/blob/24bddb3b9556aa8bbad108978721ac6ae05d3802/mcx/inference/integrators.py
#   (with hmc_proposal from mcx/inference/proposals.py at the same commit; the parent of
#   rlouf/mcx@102e4a11, "set arrays as non-static in @partial(jit..) decorators, as this
#   breaks with Jax 0.2.6", which replaced `@partial(jax.jit, static_argnums=(1,))` on
#   one_step by `@jax.jit`)
# observed on jax 0.10.2 CPU: the velocity Verlet step is jitted with step_size static, but
#   mcx's Stan warmup hands the proposal `np.exp(da_state.log_step_size)`, an array; when
#   propose traces its fori_loop body, the call `integrator(state, step_size)` passes that
#   array as a static argument and jit raises ValueError: Non-hashable static arguments
#   are not supported (unhashable type: ArrayImpl).
#   Kept: IntegratorState, velocity_verlet (docstring shortened), HMCProposalInfo and
#   hmc_proposal as in the files; `np.DeviceArray` annotations spelled `jax.Array` (the
#   name no longer exists); left out: the other integrators and proposals; added: the
#   __main__ block with a standard normal potential, the Gaussian kinetic energy and the
#   step size computed as mcx's stan warmup computes it.
# gap: static-hashability
from functools import partial
from typing import Callable, NamedTuple, Tuple

import jax
import jax.numpy as np


class IntegratorState(NamedTuple):
    position: jax.Array
    momentum: jax.Array
    log_prob_grad: float


Integrator = Callable[[IntegratorState, float], IntegratorState]


def velocity_verlet(potential_fn: Callable, kinetic_energy_fn: Callable) -> Integrator:
    """The velocity Verlet integrator, a one-stage second order symplectic integrator [1]_.

    The velocity verlet is a palindromic integrator of the form (b1, a1, b1).
    """

    b1 = 0.5
    a1 = 1.0

    potential_grad_fn = jax.jit(jax.grad(potential_fn))
    kinetic_energy_grad_fn = jax.jit(jax.grad(kinetic_energy_fn))

    @partial(jax.jit, static_argnums=(1,))
    def one_step(state: IntegratorState, step_size: float) -> IntegratorState:
        position, momentum, log_prob_grad = state

        momentum = momentum - b1 * step_size * log_prob_grad

        kinetic_grad = kinetic_energy_grad_fn(momentum)
        position = position + a1 * step_size * kinetic_grad

        log_prob_grad = potential_grad_fn(position)
        momentum = momentum - b1 * step_size * log_prob_grad

        return IntegratorState(position, momentum, log_prob_grad)

    return one_step


HMCProposalState = IntegratorState


class HMCProposalInfo(NamedTuple):
    step_size: float
    num_integration_steps: int


Proposer = Callable[
    [jax.random.PRNGKey, HMCProposalState], Tuple[HMCProposalState, HMCProposalInfo]
]


def hmc_proposal(
    integrator: Integrator, step_size: float, num_integration_steps: int = 1
) -> Proposer:
    """Vanilla HMC proposal.

    Given a path length and a step size, the HMC proposer will run the
    appropriate number of integration steps (typically with the velocity Verlet
    algorithm).

    """
    info = HMCProposalInfo(step_size, num_integration_steps)

    @jax.jit
    def propose(
        _, init_state: HMCProposalState
    ) -> Tuple[HMCProposalState, HMCProposalInfo]:
        new_state = jax.lax.fori_loop(
            0,
            num_integration_steps,
            lambda i, state: integrator(state, step_size),  # expect: JIT302
            init_state,
        )
        return new_state, info

    return propose


if __name__ == "__main__":
    def potential(x):
        return 0.5 * np.sum(x ** 2)

    def kinetic_energy(p):
        return 0.5 * np.sum(p ** 2)

    integrator = velocity_verlet(potential, kinetic_energy)
    log_step_size = np.log(0.1)
    step_size = np.exp(log_step_size)  # as mcx's stan warmup computes it
    propose = hmc_proposal(integrator, step_size, 10)
    position = np.ones(3)
    state = IntegratorState(position, np.zeros(3), jax.grad(potential)(position))
    new_state, info = propose(jax.random.PRNGKey(0), state)
