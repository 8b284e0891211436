import jax
import jax.numpy as jnp


@jax.jit
def reset_first(x):
    x.at[0].set(0.0)  # expect: JIT503
    return x


@jax.jit
def scatter_add(x, idx, v):
    x.at[idx].add(v)  # expect: JIT503
    y = x.at[idx].add(v)
    return y


@jax.jit
def clamp_last(x):
    return x.at[-1].min(1.0)


def update_cache(cache, pos, value):
    cache = cache.at[pos].set(value)
    return cache
