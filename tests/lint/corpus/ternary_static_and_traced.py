import jax
import jax.numpy as jnp


@jax.jit
def pick(x, y, use_max=True):
    fn = jnp.maximum if x.ndim > 0 else jnp.minimum
    z = fn(x, y)
    return z if z.sum() > 0 else -z  # expect: JIT101
