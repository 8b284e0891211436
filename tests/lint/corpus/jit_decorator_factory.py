"""jax.jit used as a decorator factory with keyword arguments."""

import jax
import jax.numpy as jnp


@jax.jit(static_argnames=("k",))
def top_k_mean(x, k):
    if k > x.shape[-1]:
        k = x.shape[-1]
    vals, _ = jax.lax.top_k(x, k)
    return vals.mean(-1)


@jax.jit(static_argnames=("k",))
def threshold_mean(x, k, thresh):
    vals, _ = jax.lax.top_k(x, k)
    if vals.min() < thresh:  # expect: JIT101
        return jnp.zeros(())
    return vals.mean()
