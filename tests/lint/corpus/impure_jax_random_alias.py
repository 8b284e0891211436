"""`from jax import random` shadows the stdlib module name: these calls are pure (no JIT204)."""

import jax
import jax.numpy as jnp
from jax import random


@jax.jit
def init_layer(key, fan_in, fan_out):
    w_key, b_key = random.split(key)
    w = random.normal(w_key, (fan_in, fan_out)) / jnp.sqrt(fan_in)  # expect: JIT404
    b = random.uniform(b_key, (fan_out,), minval=-0.1, maxval=0.1)  # expect: JIT404
    return w, b


@jax.jit
def augment(key, images):
    k1, k2 = random.split(key)
    flip = random.bernoulli(k1, 0.5, (images.shape[0],))
    images = jnp.where(flip[:, None, None, None], images[:, :, ::-1], images)
    return images + 0.01 * random.normal(k2, images.shape)
