import jax
import jax.numpy as jnp
import numpy as np


def mse(pred, target):
    return jnp.mean((pred - target) ** 2)


def l2(params):
    return sum(jnp.sum(p**2) for p in jax.tree.leaves(params))


def as_number(loss):
    return float(loss)  # expect: JIT401


def spread(pred):
    return np.median(pred)  # expect: JIT402


def spread_fixed(pred):
    return jnp.std(pred)
