"""Constant Python loops under jit: a handful unrolls fine, thousands do not."""

import jax
import jax.numpy as jnp

NUM_LAYERS = 6
HORIZON = 2000


@jax.jit
def deep_tanh(x, ws):
    for i in range(NUM_LAYERS):
        x = jnp.tanh(x @ ws[i])
    return x


@jax.jit
def rollout(x, a):
    traj = []
    for t in range(HORIZON):  # expect: JIT303
        x = 0.99 * x + a
        traj.append(x)
    return jnp.stack(traj)


@jax.jit
def rollout_scan(x, a):
    def step(x, _):
        x = 0.99 * x + a
        return x, x

    return jax.lax.scan(step, x, None, length=HORIZON)[1]
