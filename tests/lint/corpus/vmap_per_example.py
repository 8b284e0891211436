"""Per-example gradient clipping with vmap."""

import jax
import jax.numpy as jnp


def per_example_loss(params, x, y):
    pred = x @ params
    return (pred - y) ** 2


def clipped_grad(params, x, y, max_norm):
    g = jax.grad(per_example_loss)(params, x, y)
    norm = jnp.linalg.norm(g)
    if norm > max_norm:  # expect: JIT101
        g = g * (max_norm / norm)
    return g


batched_grads = jax.vmap(clipped_grad, in_axes=(None, 0, 0, None))


def clipped_grad_ok(params, x, y, max_norm):
    g = jax.grad(per_example_loss)(params, x, y)
    norm = jnp.linalg.norm(g)
    return g * jnp.minimum(1.0, max_norm / (norm + 1e-12))


batched_grads_ok = jax.vmap(clipped_grad_ok, in_axes=(None, 0, 0, None))
