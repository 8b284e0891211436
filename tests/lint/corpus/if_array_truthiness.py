import jax
import jax.numpy as jnp


@jax.jit
def maybe_mask(x, mask):
    if mask:  # expect: JIT101
        return x * mask
    return x


@jax.jit
def stop_when_done(x, done):
    while not done:  # expect: JIT102  # tolerate: JIT103
        x = x + 1
        done = x > 10
    return x
