"""A module-level loop rebinds a global that a jitted function reads (the FAQ's impure_func)."""

import jax
import jax.numpy as jnp

y = 0


@jax.jit
def impure_func(x):
    return x + y  # expect: JIT201


for y in range(3):
    print("Result:", impure_func(y))
