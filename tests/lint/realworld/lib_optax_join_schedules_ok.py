# source: https://github.com/google-deepmind/optax/blob/v0.2.8/optax/schedules/_join.py
#   (join_schedules, optax 0.2.8 as released; docstring shortened)
# observed on jax 0.10.2 CPU: runs clean under jit with a traced step: the Python loop runs
#   over the static lists of schedules and boundaries, and the switch between schedules is
#   jnp.where on the traced step, not a Python comparison. The __main__ block (a linear
#   warmup joined to a constant schedule, as optax.warmup_* schedules use it) is added.
# gap: exemption-vs-JAX
from typing import Sequence

import jax
import jax.numpy as jnp
import optax
from optax._src import base


def join_schedules(
    schedules: Sequence[base.Schedule], boundaries: Sequence[int]
) -> base.Schedule:
  """Sequentially apply multiple schedules."""

  def schedule(step: jax.typing.ArrayLike) -> jax.typing.ArrayLike:
    output = schedules[0](step)
    for boundary, schedule in zip(boundaries, schedules[1:]):
      output = jnp.where(step < boundary, output, schedule(step - boundary))
    return output

  return schedule


if __name__ == "__main__":
    sched = join_schedules(
        [optax.linear_schedule(0.0, 1.0, 10), optax.constant_schedule(1.0)], [10]
    )
    jitted = jax.jit(sched)
    values = [float(jitted(jnp.asarray(s))) for s in (0, 5, 10, 50)]
    assert values == [0.0, 0.5, 1.0, 1.0], values
