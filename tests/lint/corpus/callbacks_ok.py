import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback

host_log = []


def _record(x):
    host_log.append(np.asarray(x))
    return np.zeros((), np.float32)


@jax.jit
def step(x):
    jax.debug.callback(lambda v: print("value", v), x)
    io_callback(_record, jax.ShapeDtypeStruct((), jnp.float32), x.mean())
    return x * 2
