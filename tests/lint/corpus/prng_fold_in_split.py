import jax
import jax.numpy as jnp
from jax import random


def dropout_layers(key, xs, rate):
    out = []
    for i, x in enumerate(xs):
        k = random.fold_in(key, i)
        keep = random.bernoulli(k, 1 - rate, x.shape)
        out.append(jnp.where(keep, x / (1 - rate), 0))
    return out


@jax.jit
def sample_two(key, shape):
    key, sub = random.split(key)
    a = random.normal(sub, shape)  # expect: JIT404
    key, sub = random.split(key)
    b = random.uniform(sub, shape)  # expect: JIT404
    return a, b, key
