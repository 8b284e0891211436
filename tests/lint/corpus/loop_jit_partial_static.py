from functools import partial

import jax
import jax.numpy as jnp


def forward(x, depth, width):
    for _ in range(depth):
        x = jnp.tanh(x[..., :width])
    return x


def evaluate_architectures(x, configs):
    scores = {}
    for depth, width in configs:
        f = jax.jit(partial(forward, depth=depth, width=width))  # expect: JIT301
        scores[(depth, width)] = f(x).mean()
    return scores


forward_jit = jax.jit(forward, static_argnames=("depth", "width"))


def evaluate_architectures_ok(x, configs):
    return {(d, w): forward_jit(x, depth=d, width=w).mean() for d, w in configs}
