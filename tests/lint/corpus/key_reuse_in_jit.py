import jax
import jax.numpy as jnp


@jax.jit
def vae_sample(key, mu, logvar):
    eps = jax.random.normal(key, mu.shape)
    z = mu + jnp.exp(0.5 * logvar) * eps
    drop = jax.random.bernoulli(key, 0.9, z.shape)  # expect: JIT502
    return jnp.where(drop, z, 0.0)


@jax.jit
def vae_sample_ok(key, mu, logvar):
    k_eps, k_drop = jax.random.split(key)
    eps = jax.random.normal(k_eps, mu.shape)
    z = mu + jnp.exp(0.5 * logvar) * eps
    return jnp.where(jax.random.bernoulli(k_drop, 0.9, z.shape), z, 0.0)
