"""A jitted closure defined in the body of a training loop."""

import jax
import jax.numpy as jnp


def train(params, data, epochs):
    for epoch in range(epochs):
        scale = 1.0 / (epoch + 1)

        @jax.jit  # expect: JIT301
        def step(p, batch):
            return p - scale * jnp.mean(batch, axis=0)

        for batch in data:
            params = step(params, batch)
    return params


@jax.jit
def step_ok(p, batch, scale):
    return p - scale * jnp.mean(batch, axis=0)


def train_ok(params, data, epochs):
    for epoch in range(epochs):
        for batch in data:
            params = step_ok(params, batch, 1.0 / (epoch + 1))
    return params
