import jax
import jax.numpy as jnp


def choose_block(n):
    if n % 128 == 0:
        return 128
    elif n % 64 == 0:
        return 64
    return 1


def needs_padding(x, multiple):
    return x.shape[0] % multiple != 0


@jax.jit
def blocked_sum(x):
    block = choose_block(x.shape[0])
    if needs_padding(x, block):
        x = jnp.pad(x, (0, block - x.shape[0] % block))
    return x.reshape(-1, block).sum(axis=1)
