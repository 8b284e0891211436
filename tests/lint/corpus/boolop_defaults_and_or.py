import jax
import jax.numpy as jnp


@jax.jit
def combine(a, b, scale=None):
    scale = scale or 1.0  # expect: JIT103
    return (a + b) * scale


def combine_impl(a, b, name=None, axis=None):
    name = name or "combine"
    axis = axis or -1
    return jnp.sum(a + b, axis=axis)


combine_jit = jax.jit(combine_impl, static_argnames=("name", "axis"))


@jax.jit
def any_positive(x, y):
    return jnp.any(x > 0) or jnp.any(y > 0)  # expect: JIT103
