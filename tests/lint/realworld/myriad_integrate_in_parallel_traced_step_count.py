# source: https://github.com/nikihowe/myriad/blob/9fb98d9960227515a12be4899e56e0b8ca565b95/source/utils.py
#   (research code for trajectory optimisation; fixed in commit c1754e8ef5bbd1098f25302726812abc25413aa0,
#   "Fix integrate_in_parallel compilation", which adds the step count to static_argnums)
# observed on jax 0.10.2 CPU: integrate_in_parallel is jitted with only the dynamics function
#   static, so the step count N reaches `jnp.arange(N)` inside `integrate` as a tracer and the
#   call raises TypeError (ConcretizationTypeError: Abstract tracer value ... in jnp.arange).
#   Kept: `integrate` and `integrate_in_parallel` (the file's integrate_v2 is left out). Added: a
#   linear `dynamics` stand-in for system.dynamics and the inputs, shaped as in the call
#   `integrate_in_parallel(system.dynamics, xs[:-1], us, h_u, hp.controls_per_interval)` of
#   source/optimizers.py.
# gap: omnistaging
from typing import Callable, Tuple, Optional, Union

import jax.numpy as jnp
from jax import jit, lax, vmap


def integrate(
  dynamics_t: Callable[[jnp.ndarray, float], jnp.ndarray],  # dynamics function
  x_0: jnp.ndarray,  # starting state
  interval_us: jnp.ndarray,  # controls
  h: float,  # step size
  N: int,  # steps
) -> Tuple[jnp.ndarray, jnp.ndarray]:
  # nh : hold u constant for each integration step (zero-order interpolation)
  # TODO: fix this (coming from later branch)
  @jit
  def rk4_step(x, u):
    k1 = dynamics_t(x, u)
    k2 = dynamics_t(x + h * k1 / 2, u)
    k3 = dynamics_t(x + h * k2 / 2, u)
    k4 = dynamics_t(x + h * k3, u)
    return x + (h / 6) * (k1 + 2 * k2 + 2 * k3 + k4)

  def fn(carried_state, idx):
    one_step_forward = rk4_step(carried_state, interval_us[idx])
    return one_step_forward, one_step_forward # (carry, y)

  x_T, all_next_states = lax.scan(fn, x_0, jnp.arange(N))  # expect: JIT404
  return x_T, jnp.concatenate((x_0[None], all_next_states))


# Used for the augmented state cost calculation
integrate_in_parallel = jit(vmap(integrate, in_axes=(None, 0, 0, None, None)), static_argnums=0)


# Added stand-ins: a linear system and multiple-shooting inputs
def dynamics(x, u):
  return jnp.array([x[1], -x[0] + u])


intervals, controls_per_interval = 4, 5
xs = jnp.ones((intervals + 1, 2))
us = jnp.zeros((intervals, controls_per_interval))
h_u = 0.1

px, _ = integrate_in_parallel(dynamics, xs[:-1], us, h_u, controls_per_interval)
print(px)
