# source: https://github.com/google-deepmind/optax/blob/v0.2.8/optax/schedules/_schedule.py
#   (polynomial_schedule, optax 0.2.8 as released; docstring shortened)
# observed on jax 0.10.2 CPU: runs clean with the schedule called on a traced count
#   inside jit: the `if`s are on the Python hyper-parameters, not on the count.
# gap: flow-sensitive
import logging

import jax
import jax.numpy as jnp


def polynomial_schedule(
    init_value: jax.typing.ArrayLike,
    end_value: jax.typing.ArrayLike,
    power: jax.typing.ArrayLike,
    transition_steps: int,
    transition_begin: int = 0,
):
  r"""Constructs a schedule with polynomial transition from init to end value."""
  if transition_steps <= 0:
    logging.info(
        'A polynomial schedule was set with a non-positive `transition_steps` '
        'value; this results in a constant schedule with value `init_value`.'
    )
    return lambda count: init_value

  if transition_begin < 0:
    logging.info(
        'A polynomial schedule was set with a negative `transition_begin` '
        'value; this will result in `transition_begin` falling back to `0`.'
    )
    transition_begin = 0

  def schedule(count):
    count = jnp.clip(count - transition_begin, 0, transition_steps)
    frac = 1 - count / transition_steps
    return (init_value - end_value) * (frac**power) + end_value

  return schedule


if __name__ == "__main__":
    fn = polynomial_schedule(1.0, 0.01, 2, transition_steps=100, transition_begin=5)
    print(jax.jit(fn)(jnp.int32(50)))
    print(jax.jit(polynomial_schedule(1.0, 0.01, 2, transition_steps=0))(jnp.int32(3)))
