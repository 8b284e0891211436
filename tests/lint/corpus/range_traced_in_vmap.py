import jax
import jax.numpy as jnp


def poly(x, degree):
    acc = 0.0
    for k in range(degree):  # expect: JIT104
        acc = acc + x**k
    return acc


batched_poly = jax.vmap(poly)
