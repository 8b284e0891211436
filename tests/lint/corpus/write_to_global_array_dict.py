import jax
import jax.numpy as jnp

STATS = {"count": 0, "sum": 0.0}


@jax.jit
def observe(x):
    STATS["sum"] = STATS["sum"] + x.sum()  # expect: JIT202  # tolerate: JIT201
    return x
