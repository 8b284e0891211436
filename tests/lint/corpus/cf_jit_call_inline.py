import jax
import jax.numpy as jnp


def sign_flip(x):
    if jnp.mean(x) < 0:  # expect: JIT101
        return -x
    return x


def scale(x, factor):
    return x * factor


def run(x):
    y = jax.jit(sign_flip)(x)
    z = jax.jit(scale, static_argnums=1)(y, 2.0)
    return z
