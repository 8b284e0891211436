#!/usr/bin/env python
# Copyright header comment.
from jax import jit
import numpy as np
import jax
import jax.numpy as jnp


@jit
def f(x):
    jax.debug.print("value {}", x)
    return jnp.sqrt(x)
