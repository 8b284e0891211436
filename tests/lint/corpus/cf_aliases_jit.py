"""The same bug spelled through several import aliases."""

import jax as J
import jax.numpy as np_j
from jax import jit as compile_fn
from jax import numpy as jnp


@compile_fn
def step_a(x):
    if x.sum() > 0:  # expect: JIT101
        return x
    return -x


@J.jit
def step_b(x):
    while np_j.max(x) > 1.0:  # expect: JIT102
        x = x / 2
    return x


def step_c(x):
    return jnp.where(x.sum() > 0, x, -x)


step_c_jit = compile_fn(step_c)
