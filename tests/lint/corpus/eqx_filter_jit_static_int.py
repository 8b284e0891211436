"""eqx.filter_jit traces only arrays: Python ints and strings stay static."""

import equinox as eqx
import jax
import jax.numpy as jnp


@eqx.filter_jit
def rollout(model, x0, num_steps: int, mode: str = "euler"):
    x = x0
    for _ in range(num_steps):
        if mode == "euler":
            x = x + 0.01 * model(x)
        else:
            x = model(x)
    return x


def run(model):
    return rollout(model, jnp.zeros(3), 20, mode="euler")
