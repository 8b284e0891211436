"""A module that imports NumPy but not jax.numpy."""

import jax
import numpy as np


@jax.jit
def normalize(x):
    return (x - jax.numpy.mean(x)) / jax.numpy.std(x)
