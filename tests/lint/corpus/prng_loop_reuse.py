import jax
import jax.numpy as jnp


def sample_paths(key, n_paths, n_steps):
    paths = []
    for _ in range(n_paths):
        eps = jax.random.normal(key, (n_steps,))  # expect: JIT502
        paths.append(jnp.cumsum(eps))
    return jnp.stack(paths)


def sample_paths_ok(key, n_paths, n_steps):
    keys = jax.random.split(key, n_paths)
    return jnp.cumsum(jax.vmap(lambda k: jax.random.normal(k, (n_steps,)))(keys), axis=-1)


def sample_paths_loop_ok(key, n_paths, n_steps):
    paths = []
    for _ in range(n_paths):
        key, sub = jax.random.split(key)
        paths.append(jnp.cumsum(jax.random.normal(sub, (n_steps,))))
    return jnp.stack(paths)
