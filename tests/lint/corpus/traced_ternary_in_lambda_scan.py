import jax
import jax.numpy as jnp


def cumulative_max(xs):
    return jax.lax.scan(lambda c, x: ((x if x > c else c),) * 2, xs[0], xs)  # expect: JIT101


def cumulative_max_ok(xs):
    return jax.lax.scan(lambda c, x: (jnp.maximum(c, x),) * 2, xs[0], xs)
