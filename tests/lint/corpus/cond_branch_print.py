import jax
import jax.numpy as jnp
from jax import lax


def true_fn(x):
    print("taking true branch", x)  # expect: JIT203
    return x * 2


def false_fn(x):
    jax.debug.print("false branch {}", x)
    return x / 2


def branchy(p, x):
    return lax.cond(p, true_fn, false_fn, x)
