# source: https://github.com/rlouf/mcx/blob/102e4a11471c7375c5fcbb04992e7d4058d93d6a/mcx/inference/integrators.py
#   (rlouf/mcx@102e4a11, "set arrays as non-static in @partial(jit..) decorators, as this
#   breaks with Jax 0.2.6", which jits one_step with `@jax.jit`; with hmc_proposal from
#   mcx/inference/proposals.py, unchanged by the commit)
# observed on jax 0.10.2 CPU: the step size reaches one_step as an ordinary traced argument;
#   propose runs ten velocity Verlet steps with the warmup's array step size, and vmapped
#   over a batch of step sizes, as mcx's warmup runs it, without error.
#   Kept: IntegratorState, velocity_verlet (docstring shortened), HMCProposalInfo and
#   hmc_proposal as in the files; `np.DeviceArray` annotations spelled `jax.Array` (the
#   name no longer exists); left out: the other integrators and proposals; added: the
#   __main__ block with a standard normal potential, the Gaussian kinetic energy and the
#   step size computed as mcx's stan warmup computes it, also vmapped over three sizes.
# gap: static-hashability
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

    @jax.jit
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
            lambda i, state: integrator(state, step_size),
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
    assert np.all(np.isfinite(new_state.position))

    def run_one(step_size):
        propose = hmc_proposal(integrator, step_size, 10)
        return propose(None, state)[0].position

    positions = jax.vmap(run_one)(np.array([0.05, 0.1, 0.2]))
    assert positions.shape == (3, 3)
