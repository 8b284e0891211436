import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnums=(2,))
def pool(x, w, mode):
    if mode == "max":
        return jnp.max(x * w, axis=0)
    return jnp.mean(x * w, axis=0)


@functools.partial(jax.jit, static_argnames="mode")
def pool2(x, w, mode, thresh):
    if thresh > 0.5:  # expect: JIT101
        x = x * 2
    return x * w if mode == "mul" else x + w
