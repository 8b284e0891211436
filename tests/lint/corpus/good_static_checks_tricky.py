"""Python control flow on static properties of traced values: all legal under jit."""

import jax
import jax.numpy as jnp


@jax.jit
def broadcast_add(x, y=None, bias=None):
    if y is None:
        y = jnp.zeros_like(x)
    if isinstance(bias, (int, float)):
        y = y + bias
    elif bias is not None and bias.shape == x.shape:
        y = y + bias
    if x.shape[0] > 3 and x.dtype == jnp.float32:
        y = y * 2
    if len(x) != len(y):
        raise ValueError("length mismatch")
    while y.ndim < x.ndim:
        y = y[None]
    if not x.size:
        return x
    return x + y


@jax.jit
def weighted(xs):
    if len(xs) == 0:
        return jnp.zeros(())
    total = xs[0]
    for x in xs[1:]:
        total = total + x
    return total / len(xs)


@jax.jit
def pad_to(x):
    target = 8 if x.shape[-1] < 8 else x.shape[-1]
    if jnp.issubdtype(x.dtype, jnp.integer):
        x = x.astype(jnp.float32)
    return jnp.pad(x, (0, target - x.shape[-1]))
