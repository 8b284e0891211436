import jax
import jax.numpy as jnp


def resize(x, shape):
    return jax.image.resize(x, shape, "bilinear")


resize_jit = jax.jit(resize, static_argnames="shape")


def pyramid(x):
    half = resize_jit(x, shape=(x.shape[0] // 2, x.shape[1] // 2))
    same = resize_jit(x, shape=x.shape)
    bad = resize_jit(x, shape=list(x.shape))  # expect: JIT302
    return half, same, bad
