import jax
import jax.numpy as jnp


@jax.jit
def pool_to(x, target=4):
    while x.shape[0] > target:
        x = 0.5 * (x[0::2] + x[1::2])
    return x


@jax.jit
def halve_until(x, min_size):
    while x.shape[-1] > min_size:  # expect: JIT102
        x = x[..., ::2]
    return x
