"""Branches on arguments marked static by position, name and negative index."""

from functools import partial

import jax
import jax.numpy as jnp


def _pad_or_crop(x, length, mode):
    if mode == "pad":
        return jnp.pad(x, (0, length))
    if length > 0:
        return x[:-length]
    return x


pad_or_crop = jax.jit(_pad_or_crop, static_argnums=(1, 2))


@partial(jax.jit, static_argnums=-1)
def activation(x, kind):
    if kind == "relu":
        return jax.nn.relu(x)
    elif kind == "gelu":
        return jax.nn.gelu(x)
    return x


@partial(jax.jit, static_argnums=(0,))
def repeat(n, x):
    out = x
    for _ in range(n):
        out = jnp.tanh(out)
    return out


@partial(jax.jit, static_argnums=1)
def wrong_static(x, scale, bias):
    if bias > 0:  # expect: JIT101
        return x * scale + bias
    return x * scale
