"""Value-dependent output shapes inside jit."""

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def positive_mean(x):
    return x[x > 0].mean()  # expect: JIT403


@jax.jit
def positive_mean_ok(x):
    mask = x > 0
    return jnp.sum(jnp.where(mask, x, 0.0)) / jnp.maximum(mask.sum(), 1)


@jax.jit
def active_indices(x):
    return jnp.nonzero(x > 0.5)  # expect: JIT403


@jax.jit
def active_indices_fixed(x):
    return jnp.nonzero(x > 0.5, size=16, fill_value=-1)


@jax.jit
def where_one_arg(x):
    return jnp.where(x > 0)  # expect: JIT403


def host_filter(x):
    x = np.asarray(x)
    return x[x > 0]
