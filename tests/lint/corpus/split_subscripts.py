import jax
import jax.numpy as jnp


def init(key, d):
    keys = jax.random.split(key, 3)
    w = jax.random.normal(keys[0], (d, d))
    b = jax.random.normal(keys[1], (d,))
    s = jax.random.uniform(keys[2], ())
    noise = [jax.random.normal(k, (d,)) for k in jax.random.split(keys[2], 4)]  # expect: JIT502
    return w, b, s, noise


def init_bad(key, d):
    keys = jax.random.split(key, 2)
    w = jax.random.normal(keys[0], (d, d))
    b = jax.random.normal(keys[0], (d,))  # expect: JIT502
    return w, b
