import jax
import jax.numpy as jnp


@jax.jit
def first_k(x, mask):
    k = mask.sum()
    out = jnp.zeros_like(x)
    for i in range(k):  # expect: JIT104
        out = out.at[i].set(x[i])
    return out


@jax.jit
def all_items(x):
    acc = 0.0
    for i in range(x.size):
        acc = acc + x.ravel()[i]
    return acc
