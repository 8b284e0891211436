"""A module that imports NumPy but not jax.numpy."""

import jax
import numpy as np


@jax.jit
def normalize(x):
    return jax.numpy.log(x) / jax.numpy.sqrt(x)
