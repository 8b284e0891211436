import jax
import jax.numpy as jnp


@jax.jit
def fill(x, y=None, z=None):
    if y is None or z is None:
        return x
    w = y or jnp.zeros_like(x)  # expect: JIT103
    return x + w + z
