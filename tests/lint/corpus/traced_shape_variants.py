import jax
import jax.numpy as jnp


@jax.jit
def ones_like_len(x, n):
    return jnp.ones((n, x.shape[-1]))  # expect: JIT404


@jax.jit
def eye_n(k):
    return jnp.eye(k)  # expect: JIT404


@jax.jit
def fine(x):
    n = x.shape[0]
    return jnp.ones((n, 2)), jnp.eye(x.shape[-1]), jnp.full((len(x),), 3.0)


@jax.jit
def broadcast_to_len(x, m):
    return jnp.broadcast_to(x, (m, x.shape[0]))  # expect: JIT404
