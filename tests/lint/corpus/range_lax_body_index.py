import jax
import jax.numpy as jnp
from jax import lax


def triangular_sums(x, n):
    def body(i, acc):
        s = 0.0
        for j in range(i):  # expect: JIT104
            s = s + x[j]
        return acc.at[i].set(s)

    return lax.fori_loop(0, n, body, jnp.zeros(n))


def triangular_sums_ok(x, n):
    def body(i, acc):
        return acc.at[i].set(jnp.sum(jnp.where(jnp.arange(x.shape[0]) < i, x, 0.0)))

    return lax.fori_loop(0, n, body, jnp.zeros(n))
