"""A list built in a variable before being passed as a static argument."""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


@partial(jax.jit, static_argnums=(1, 2))
def conv_stack(x, channels, kernel):
    for c in channels:
        x = jnp.tanh(x[..., :c] * kernel[0])
    return x


def main():
    x = jnp.ones((8, 128))
    channels = [64, 32]
    kernel = (3, 3)
    y = conv_stack(x, channels, kernel)  # expect: JIT302
    z = conv_stack(x, tuple(channels), kernel)
    w = conv_stack(x, (16,), np.array([3, 3]))  # expect: JIT302
    return y, z, w
