import jax
import jax.numpy as jnp


def noise(key, shape, kind):
    if kind == "normal":
        return jax.random.normal(key, shape)
    else:
        return jax.random.uniform(key, shape)


def two_noises(key, shape):
    a = noise(key, shape, "normal")
    b = jax.random.uniform(key, shape)  # expect: JIT502
    return a + b
