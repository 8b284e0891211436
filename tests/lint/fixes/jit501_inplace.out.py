import jax
import jax.numpy as jnp


@jax.jit
def update(x, i, v):
    x = x.at[i].set(v)
    x = x.at[0, 1:].add(2 * v)  # keep this comment
    x = x.at[i].multiply(v)
    return jnp.sum(x)
