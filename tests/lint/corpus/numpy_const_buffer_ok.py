import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def weighted(x):
    w = np.zeros(3, np.float32)
    w[0] = 1.0
    w[1:] = 0.5
    return x * jnp.asarray(w)


@jax.jit
def tuple_return(x, y):
    return x.at[0].set(1.0), y.at[-1].add(2.0)


def driver():
    x = jnp.zeros(3)
    x = x.at[0].set(1.0)
    return x
