"""Consuming the same PRNG key twice gives correlated samples."""

import jax
import jax.numpy as jnp


def init_mlp(key, sizes):
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        key, w_key, b_key = jax.random.split(key, 3)
        params.append(
            (
                jax.random.normal(w_key, (fan_in, fan_out)) / jnp.sqrt(fan_in),
                jax.random.normal(b_key, (fan_out,)) * 0.01,
            )
        )
    return params


def init_linear_bad(key, fan_in, fan_out):
    w = jax.random.normal(key, (fan_in, fan_out))
    b = jax.random.normal(key, (fan_out,))  # expect: JIT502
    return w, b


def noisy_pair(key, x):
    eps1 = jax.random.normal(key, x.shape)
    k1, k2 = jax.random.split(key)  # expect: JIT502
    return x + eps1, jax.random.uniform(k1, x.shape), k2
