import jax
import jax.numpy as jnp


@jax.jit
def sinkhorn(K, a, b, iters=50):
    u = jnp.ones_like(a)
    v = jnp.ones_like(b)
    err = jnp.inf
    it = 0
    while err > 1e-6:  # expect: JIT102
        u = a / (K @ v)
        v = b / (K.T @ u)
        err = jnp.abs(u * (K @ v) - a).sum()
        it += 1
    return u, v
