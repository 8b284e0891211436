import jax


def add_noise(key, x, scale=0.1):
    return x + scale * jax.random.normal(key, x.shape)


def two_draws(key, shape):
    k1, k2 = jax.random.split(key)
    return jax.random.normal(k1, shape), jax.random.uniform(k2, shape)
