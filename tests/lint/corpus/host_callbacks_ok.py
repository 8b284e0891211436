import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback


def _log(v):
    print("value on host:", v)


def _np_solve(a, b):
    return np.linalg.solve(np.asarray(a), np.asarray(b)).astype(np.float32)


def _host_noise(shape_like):
    return np.random.normal(size=shape_like.shape).astype(np.float32)


@jax.jit
def solve(a, b):
    jax.debug.callback(_log, b)
    x = jax.pure_callback(_np_solve, jax.ShapeDtypeStruct(b.shape, jnp.float32), a, b)
    noise = io_callback(_host_noise, jax.ShapeDtypeStruct(b.shape, jnp.float32), b)
    return x + 0.0 * noise
