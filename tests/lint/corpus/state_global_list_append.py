"""Collecting intermediate values in a module-level list from traced code."""

import jax
import jax.numpy as jnp

global_list = []
activations = {}


@jax.jit
def log2(x):
    global_list.append(x)  # expect: JIT202
    ln_x = jnp.log(x)
    ln_2 = jnp.log(2.0)
    return ln_x / ln_2


@jax.jit
def forward(x, w):
    h = jnp.tanh(x @ w)
    activations["hidden"] = h  # expect: JIT202
    return h.sum()


def record_host(value):
    global_list.append(value)
    activations["last"] = value
