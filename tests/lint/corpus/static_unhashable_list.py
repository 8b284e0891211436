"""Lists passed where jit expects hashable static arguments."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("features",))
def mlp_init(key, features):
    keys = jax.random.split(key, len(features))
    return [jax.random.normal(k, (f,)) for k, f in zip(keys, features)]


def build(key):
    good = mlp_init(key, features=(64, 64, 10))
    bad = mlp_init(key, features=[64, 64, 10])  # expect: JIT302  # tolerate: JIT502
    return good, bad


def reshape(x, shape):
    return x.reshape(shape)


reshape_jit = jax.jit(reshape, static_argnums=1)


def use_reshape(x):
    a = reshape_jit(x, (4, -1))
    b = reshape_jit(x, [4, -1])  # expect: JIT302
    return a, b
