"""A numpyro-style reparameterised sampler that reuses its key."""

import jax
import jax.numpy as jnp
from jax import random


@jax.jit
def sample_gaussian_mixture(key, weights, means, scales):
    comp = random.categorical(key, jnp.log(weights))
    eps = random.normal(key, means.shape[-1:])  # expect: JIT502
    return means[comp] + scales[comp] * eps


@jax.jit
def sample_gaussian_mixture_ok(key, weights, means, scales):
    k_comp, k_eps = random.split(key)
    comp = random.categorical(k_comp, jnp.log(weights))
    eps = random.normal(k_eps, means.shape[-1:])
    return means[comp] + scales[comp] * eps
