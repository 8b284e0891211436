"""Donating the training state to the step function."""

import jax
import jax.numpy as jnp


def _train_step(state, batch):
    params, step = state
    grads = jax.grad(lambda p: jnp.mean((batch @ p) ** 2))(params)
    return params - 1e-3 * grads, step + 1


train_step = jax.jit(_train_step, donate_argnums=(0,))


def fit(state, batches, log_every=10):
    for i, batch in enumerate(batches):
        prev = state
        state = train_step(state, batch)
        if i % log_every == 0:
            delta = jnp.linalg.norm(state[0] - prev[0])  # expect: JIT504
            print(i, delta)
    return state


def fit_ok(state, batches):
    history = []
    for batch in batches:
        state = train_step(state, batch)
        history.append(state[1])
    return state, history
