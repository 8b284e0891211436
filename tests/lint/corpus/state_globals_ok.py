"""Globals that are safe to read from traced code: never rebound, never mutated."""

import math

import jax
import jax.numpy as jnp
import numpy as np

LOG_2PI = math.log(2 * math.pi)
DEFAULT_CONFIG = {"hidden": 128, "heads": 4}
ACTIVATIONS = {"relu": jax.nn.relu, "tanh": jnp.tanh}
_SQRT_HALF = np.sqrt(0.5)
dtype = jnp.float32


def _init_scale(fan_in):
    return 1.0 / math.sqrt(fan_in)


@jax.jit
def normal_logpdf(x, mu, sigma):
    return -0.5 * (((x - mu) / sigma) ** 2 + LOG_2PI) - jnp.log(sigma)


@jax.jit
def block(x, w):
    act = ACTIVATIONS["relu"]
    h = act(x @ w * _init_scale(DEFAULT_CONFIG["hidden"]))
    return (h * _SQRT_HALF).astype(dtype)
