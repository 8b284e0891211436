import jax
import jax.numpy as jnp
from jax import random


def init(key, d):
    k1, k2 = random.split(key)
    w = random.normal(k1, (d, d))
    b = random.normal(k1, (d,))  # expect: JIT502
    return w, b, k2


def init_ok(key, d):
    k1, k2 = random.split(key)
    return random.normal(k1, (d, d)), random.normal(k2, (d,))
