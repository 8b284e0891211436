"""Globals read by a helper that jitted code calls."""

import jax
import jax.numpy as jnp

noise_scale = 0.1


def perturb(x, key):
    return x + noise_scale * jax.random.normal(key, x.shape)  # expect: JIT201


@jax.jit
def step(x, key):
    return perturb(x, key) * 0.5


def anneal():
    global noise_scale
    noise_scale = noise_scale * 0.9
