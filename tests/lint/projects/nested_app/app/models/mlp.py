import jax
import jax.numpy as jnp

from ..utils.numerics import count_positive, safe_log
from .blocks import dense, residual


def mlp_init(key, sizes):
    keys = jax.random.split(key, len(sizes) - 1)
    return [
        {"w": jax.random.normal(k, (m, n)) * 0.1, "b": jnp.zeros(n)}
        for k, m, n in zip(keys, sizes[:-1], sizes[1:])
    ]


def mlp_apply(params, x):
    for layer in params[:-1]:
        x = residual(x, jax.nn.relu(dense(layer, x)))
    return safe_log(1.0 + jnp.exp(dense(params[-1], x)))


def sparsity(params, x):
    active = count_positive(dense(params[0], x))
    return active / x.shape[-1]
