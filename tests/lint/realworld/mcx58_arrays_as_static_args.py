# source: https://github.com/rlouf/mcx/issues/58 (mcx/inference/warmup/num_steps_adaptation.py
#   before the fix of the follow-up PR #61,
#   https://github.com/rlouf/mcx/blob/e49698f7758a3d52f0e8d71426d5cf0a2aefe6e2/mcx/inference/warmup/num_steps_adaptation.py;
#   the module docstring and long docstrings are shortened, the removed `np.DeviceArray`
#   annotation is spelled `jax.Array`, and a leapfrog `integrator_step` and the call at the
#   end stand in for mcx's integrator and warmup)
# observed on jax 0.10.2 CPU: ValueError "Non-hashable static arguments are not supported" at
#   the call of run: static_argnums=(0, 1, 2, 3) makes the initial position and momentum,
#   two arrays, static.
# gap: static-hashability
from functools import partial
from typing import Callable, Tuple

import jax
from jax import numpy as np

__all__ = ["longest_batch_before_turn"]


def longest_batch_before_turn(integrator_step: Callable) -> Callable:
    """Learn the number of steps one can make before the trajectory makes a
    U-Turn."""

    @partial(jax.jit, static_argnums=(0, 1, 2, 3))
    def run(
        initial_position: jax.Array,
        initial_momentum: jax.Array,
        step_size: float,
        num_integration_steps: int,
    ):
        def cond(state: Tuple) -> bool:
            iteration, position, momentum = state
            return is_u_turn or iteration == num_integration_steps

        def update(state: Tuple) -> Tuple:
            iteration, position, momentum = state
            iteration += 1
            position, momentum = integrator_step(position, momentum, step_size, 1)
            return (iteration, position, momentum)

        result = jax.lax.while_loop(
            cond, update, (0, initial_position, initial_momentum)
        )

        return result[0]

    return run


@partial(jax.jit, static_argnums=(0, 2))
def is_u_turn(
    initial_position: jax.Array,
    position: jax.Array,
    inverse_mass_matrix: jax.Array,
    momentum: jax.Array,
) -> bool:
    """Detect when the trajectory starts turning back towards the point
    where it started.
    """
    v = np.multiply(inverse_mass_matrix, momentum)
    position_vec = position - initial_position
    projection = np.multiply(position_vec, v)
    return np.where(projection < 0, True, False)


def integrator_step(position, momentum, step_size, num_steps):
    momentum = momentum - 0.5 * step_size * position
    position = position + step_size * momentum
    momentum = momentum - 0.5 * step_size * position
    return position, momentum


run = longest_batch_before_turn(integrator_step)
num_steps = run(np.ones(2), np.ones(2), 0.1, 10)  # expect: JIT302
