# source: https://github.com/nikihowe/myriad/blob/c1754e8ef5bbd1098f25302726812abc25413aa0/source/utils.py
#   (research code for trajectory optimisation; commit "Fix integrate_in_parallel compilation",
#   the accepted fix of the parent, which jitted with static_argnums=0 only)
# observed on jax 0.10.2 CPU: with static_argnums=(0, 4) the step count N stays a Python int,
#   `jnp.arange(N)` and the scan length are static, the vmapped RK4 integration compiles once and
#   a second call with the same step count does not recompile. Kept: `integrate` and
#   `integrate_in_parallel` (integrate_v2 is left out). Added: a linear `dynamics` stand-in for
#   system.dynamics, the inputs shaped as in source/optimizers.py's call, and the __main__ block.
# gap: static-hashability
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

  x_T, all_next_states = lax.scan(fn, x_0, jnp.arange(N))
  return x_T, jnp.concatenate((x_0[None], all_next_states))


# Used for the augmented state cost calculation
integrate_in_parallel = jit(vmap(integrate, in_axes=(None, 0, 0, None, None)), static_argnums=(0, 4))


# Added stand-ins: a linear system and multiple-shooting inputs
def dynamics(x, u):
  return jnp.array([x[1], -x[0] + u])


intervals, controls_per_interval = 4, 5
xs = jnp.ones((intervals + 1, 2))
us = jnp.zeros((intervals, controls_per_interval))
h_u = 0.1


if __name__ == "__main__":
  px, traj = integrate_in_parallel(dynamics, xs[:-1], us, h_u, controls_per_interval)
  assert px.shape == (intervals, 2) and traj.shape == (intervals, controls_per_interval + 1, 2)
  px2, _ = integrate_in_parallel(dynamics, xs[:-1] * 2, us, h_u, controls_per_interval)
  assert jnp.allclose(px2, 2 * px)
  assert integrate_in_parallel._cache_size() == 1
