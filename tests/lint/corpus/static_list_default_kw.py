from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("axes",))
def reduce_axes(x, axes=(0,)):
    return jnp.sum(x, axis=axes)


def stats(x):
    a = reduce_axes(x, axes=(0, 1))
    b = reduce_axes(x, axes=[0, 1])  # expect: JIT302
    c = reduce_axes(x)
    return a, b, c


@partial(jax.jit, static_argnums=(1,))
def pad_dims(x, pads):
    return jnp.pad(x, pads)


def padded(x):
    return pad_dims(x, ((1, 1), (2, 2))), pad_dims(x, [(1, 1), (2, 2)])  # expect: JIT302
