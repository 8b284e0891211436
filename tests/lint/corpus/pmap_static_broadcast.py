"""pmap with static_broadcasted_argnums: branches on the static argument are fine."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.pmap, axis_name="batch", static_broadcasted_argnums=(2,))
def train_step(params, batch, use_mixup):
    if use_mixup:
        batch = 0.5 * (batch + batch[::-1])
    grads = jax.grad(lambda p: jnp.mean((batch @ p) ** 2))(params)
    grads = jax.lax.pmean(grads, "batch")
    return params - 0.01 * grads


@partial(jax.pmap, axis_name="batch")
def sync_check(x):
    total = jax.lax.psum(x.sum(), "batch")
    if total > 0:  # expect: JIT101
        return x / total
    return x
