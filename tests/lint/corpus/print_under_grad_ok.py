"""Printing under grad alone (no jit) runs on every call, so it is fine."""

import jax
import jax.numpy as jnp


def loss(w, x, y):
    pred = x @ w
    print("pred mean:", pred.mean())
    return jnp.mean((pred - y) ** 2)


grad_fn = jax.grad(loss)


def debug_run(w, x, y):
    g = grad_fn(w, x, y)
    print("grad norm", jnp.linalg.norm(g))
    return g
