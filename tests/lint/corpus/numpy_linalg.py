import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def whiten(x):
    cov = jnp.cov(x.T)
    vals, vecs = np.linalg.eigh(cov)  # expect: JIT402
    return x @ vecs / jnp.sqrt(vals)


@jax.jit
def whiten_ok(x):
    vals, vecs = jnp.linalg.eigh(jnp.cov(x.T))
    eye = np.eye(x.shape[-1])
    return x @ vecs / jnp.sqrt(vals) + 0 * eye
