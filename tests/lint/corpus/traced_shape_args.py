"""Traced values used where JAX needs a concrete shape, length or axis."""

import jax
import jax.numpy as jnp


@jax.jit
def make_buffer(n):
    return jnp.zeros(n)  # expect: JIT404


@jax.jit
def positions(seq_len):
    return jnp.arange(seq_len)  # expect: JIT404


@jax.jit
def reduce_along(x, axis):
    return jnp.sum(x, axis=axis)  # expect: JIT404


@jax.jit
def buffer_like(x):
    return jnp.zeros(x.shape[0]) + jnp.arange(len(x))


def make_buffer_static(n):
    return jnp.zeros(n)


make_buffer_jit = jax.jit(make_buffer_static, static_argnums=0)
