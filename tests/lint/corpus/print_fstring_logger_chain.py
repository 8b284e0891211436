import logging

import jax
import jax.numpy as jnp


@jax.jit
def norm(x):
    n = jnp.linalg.norm(x)
    print(f"norm is {n}")  # expect: JIT203
    logging.getLogger("model").info("norm %s", n)  # expect: JIT203
    return x / n
