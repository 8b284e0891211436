import jax
import jax.numpy as jnp
import numpy as np


def _stable_softmax(z):
    z = z - np.max(z, axis=-1, keepdims=True)  # runs: NumPy calls z.max(...)
    z = z - np.log(jnp.sum(jnp.exp(z), axis=-1, keepdims=True))  # expect: JIT402
    e = jnp.exp(z)
    return e / e.sum(-1, keepdims=True)


@jax.jit
def attend(q, k):
    return _stable_softmax(q @ k.T / np.sqrt(q.shape[-1]))
