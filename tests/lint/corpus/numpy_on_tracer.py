"""NumPy functions applied to traced arrays inside jit."""

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def standardize(x):
    mu = np.mean(x, axis=0)  # runs: NumPy calls x.mean(axis=0), which JAX computes
    sd = jnp.std(x, axis=0)
    return (x - mu) / sd


@jax.jit
def log_softmax(logits):
    shifted = logits - jnp.max(logits, axis=-1, keepdims=True)
    return shifted - np.log(jnp.sum(jnp.exp(shifted), axis=-1, keepdims=True))  # expect: JIT402


@jax.jit
def to_host(x):
    return np.asarray(x) * 2  # expect: JIT402


@jax.jit
def flat_size(x):
    n = np.prod(x.shape)
    scale = np.sqrt(2.0 / n)
    return x.reshape(n) * scale * np.pi
