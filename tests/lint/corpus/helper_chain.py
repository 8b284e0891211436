import jax
import jax.numpy as jnp


def _inner(v):
    while v > 1.0:  # expect: JIT102
        v = v / 2
    return v


def _outer(x):
    s = jnp.sum(x)
    return _inner(s)


@jax.jit
def normalize_sum(x):
    return x / _outer(x)
