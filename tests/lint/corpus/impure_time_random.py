"""Host randomness and clocks inside jitted code are frozen at trace time."""

import random
import time

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def add_noise(x):
    noise = np.random.normal(size=x.shape)  # expect: JIT204
    return x + noise


@jax.jit
def dropout(x, rate):
    keep = random.random() > rate  # expect: JIT204
    return jnp.where(keep, x / (1 - rate), 0.0)


@jax.jit
def stamp(x):
    t = time.time()  # expect: JIT204
    return x, t


@jax.jit
def add_noise_ok(key, x):
    return x + jax.random.normal(key, x.shape)


def timed_call(fn, *args):
    start = time.time()
    out = fn(*args)
    jax.block_until_ready(out)
    return out, time.time() - start
