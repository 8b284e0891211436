import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def mask_first(x):
    x = x * 1.0
    x[0] = 0.0  # expect: JIT501
    return x


@jax.jit
def scale_rows(x, s):
    x[:, 0] *= s  # expect: JIT501
    return x


def host(n):
    buf = np.empty(n)
    buf[:] = 0
    d = {}
    d["a"] = jnp.zeros(2)
    return buf, d


def device_buf():
    y = jnp.arange(4.0)
    y[1:] = 0  # expect: JIT501
    return y
