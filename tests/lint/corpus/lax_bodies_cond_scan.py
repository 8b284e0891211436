"""Bodies and branches handed to lax control flow are traced even outside jit."""

import jax
import jax.numpy as jnp
from jax import lax


def rollout(params, state0, n):
    def step(state, _):
        pos, vel = state
        if pos > 1.0:  # expect: JIT101
            vel = -vel
        pos = pos + 0.1 * vel
        return (pos, vel), pos

    _, traj = lax.scan(step, state0, None, length=n)
    return traj


def rollout_ok(params, state0, n):
    def step(state, _):
        pos, vel = state
        vel = jnp.where(pos > 1.0, -vel, vel)
        pos = pos + 0.1 * vel
        return (pos, vel), pos

    _, traj = lax.scan(step, state0, None, length=n)
    return traj


def piecewise(x):
    return lax.cond(
        x > 0,
        lambda v: v if v > 1 else v * 2,  # expect: JIT101
        lambda v: -v,
        x,
    )
