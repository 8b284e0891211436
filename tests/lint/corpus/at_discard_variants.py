import jax
import jax.numpy as jnp


@jax.jit
def zero_pad(x):
    x.at[:, -1].multiply(0.0)  # expect: JIT503
    return x


@jax.jit
def chain(x):
    x = x.at[0].set(1.0).at[1].set(2.0)
    return x, x.at[2].get()


def update(cache, i, v):
    cache.at[i].set(v)  # expect: JIT503
    return cache
