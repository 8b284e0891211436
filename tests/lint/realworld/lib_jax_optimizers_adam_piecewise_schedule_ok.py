# source: https://github.com/jax-ml/jax/blob/cec06d116c05f0d52adfceee3d3b730fdbcb0ce5/jax/example_libraries/optimizers.py
#   (adam and the piecewise_constant schedule)
# observed on jax 0.10.2 CPU: runs clean under jit: the schedule indexes a constant array
#   with `jnp.sum(i > boundaries)` of the traced step, the bias correction raises the
#   betas to the traced `i + 1`, and the `if not ...ndim...` checks in piecewise_constant
#   run on concrete arrays when the schedule is built, outside the trace. The `optimizer`
#   decorator and `make_schedule` are imported from jax.example_libraries.optimizers;
#   added: the imports and the __main__ block.
# gap: exemption-vs-JAX
from typing import Any

import jax
import jax.numpy as jnp
from jax.example_libraries.optimizers import optimizer, make_schedule


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
  """Construct optimizer triple for Adam.

  Args:
    step_size: positive scalar, or a callable representing a step size schedule
      that maps the iteration index to a positive scalar.
    b1: optional, a positive scalar value for beta_1, the exponential decay rate
      for the first moment estimates (default 0.9).
    b2: optional, a positive scalar value for beta_2, the exponential decay rate
      for the second moment estimates (default 0.999).
    eps: optional, a positive scalar value for epsilon, a small constant for
      numerical stability (default 1e-8).

  Returns:
    An (init_fun, update_fun, get_params) triple.
  """
  step_size = make_schedule(step_size)
  def init(x0):
    m0 = jnp.zeros_like(x0)
    v0 = jnp.zeros_like(x0)
    return x0, m0, v0
  def update(i, g, state):
    x, m, v = state
    m = (1 - b1) * g + b1 * m  # First  moment estimate.
    v = (1 - b2) * jnp.square(g) + b2 * v  # Second moment estimate.
    mhat = m / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))  # Bias correction.
    vhat = v / (1 - jnp.asarray(b2, m.dtype) ** (i + 1))
    x = x - step_size(i) * mhat / (jnp.sqrt(vhat) + eps)
    return x, m, v
  def get_params(state):
    x, _, _ = state
    return x
  return init, update, get_params


def piecewise_constant(boundaries: Any, values: Any):
  boundaries = jnp.array(boundaries)
  values = jnp.array(values)
  if not boundaries.ndim == values.ndim == 1:
    raise ValueError("boundaries and values must be sequences")
  if not boundaries.shape[0] == values.shape[0] - 1:
    raise ValueError("boundaries length must be one shorter than values length")

  def schedule(i):
    return values[jnp.sum(i > boundaries)]
  return schedule


if __name__ == "__main__":
  schedule = piecewise_constant([2, 4], [0.1, 0.01, 0.001])
  opt_init, opt_update, get_params = adam(schedule)
  loss = lambda p: jnp.sum((p["w"] - 3.0) ** 2)

  @jax.jit
  def step(i, opt_state):
    g = jax.grad(loss)(get_params(opt_state))
    return opt_update(i, g, opt_state)

  opt_state = opt_init({"w": jnp.zeros(3)})
  for i in range(6):
    opt_state = step(i, opt_state)
  assert step._cache_size() == 1
  schedule_jit = jax.jit(schedule)
  assert [float(schedule_jit(i)) for i in (0, 3, 5)] == [
      float(jnp.float32(0.1)), float(jnp.float32(0.01)), float(jnp.float32(0.001))]
  w = get_params(opt_state)["w"]
  assert bool((w > 0).all()) and bool((w < 3).all())
