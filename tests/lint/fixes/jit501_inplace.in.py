import jax
import jax.numpy as jnp


@jax.jit
def update(x, i, v):
    x[i] = v
    x[0, 1:] += 2 * v  # keep this comment
    x[i] *= v
    return jnp.sum(x)
