import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


def random_walk(x0, n):
    def cond(c):
        i, x = c
        return i < n

    def body(c):
        i, x = c
        step = np.random.choice([-1.0, 1.0])  # expect: JIT204
        return i + 1, x + step

    return lax.while_loop(cond, body, (0, x0))


def random_walk_ok(key, x0, n):
    def body(i, c):
        x, key = c
        key, sub = jax.random.split(key)
        return x + jax.random.choice(sub, jnp.array([-1.0, 1.0])), key

    return lax.fori_loop(0, n, body, (x0, key))
