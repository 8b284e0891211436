from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="depth")
def mlp(params, x, depth):
    for i in range(depth):
        w, b = params[i]
        x = jax.nn.relu(x @ w + b)
    return x


@jax.jit
def apply_layers(layers, x):
    for i in range(len(layers)):
        w, b = layers[i]
        x = jnp.tanh(x @ w + b)
    return x


@jax.jit
def apply_n(x, n):
    for _ in range(int(n)):  # expect: JIT401  # tolerate: JIT104
        x = jnp.sin(x)
    return x
