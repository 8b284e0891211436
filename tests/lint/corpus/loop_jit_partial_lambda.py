"""jax.jit of fresh callables inside a loop recompiles on every iteration."""

from functools import partial

import jax


def unjitted_loop_body(prev_i):
    return prev_i + 1


def g_inner_jitted_partial(x, n):
    i = 0
    while i < n:
        i = jax.jit(partial(unjitted_loop_body))(i)  # expect: JIT301
    return x + i


def g_inner_jitted_lambda(x, n):
    i = 0
    while i < n:
        i = jax.jit(lambda x: unjitted_loop_body(x))(i)  # expect: JIT301
    return x + i


def g_inner_jitted_normal(x, n):
    i = 0
    while i < n:
        i = jax.jit(unjitted_loop_body)(i)
    return x + i
