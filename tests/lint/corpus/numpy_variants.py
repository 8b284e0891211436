import jax
import jax.numpy as jnp
import numpy as onp


@jax.jit
def feats(x):
    a = onp.tanh(x)  # expect: JIT402
    b = onp.clip(x, 0, 1)  # expect: JIT402
    c = onp.zeros(x.shape) + onp.float32(2.0)
    e = onp.array([1.0, 2.0])
    return a, b, c, jnp.asarray(e) * onp.e


def host(x):
    return onp.tanh(onp.asarray(x))
