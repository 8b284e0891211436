"""Bug: `jax.jit` of a fresh partial or lambda inside a loop (jitlint: JIT301).

From the JAX tutorial's caching section: each iteration builds a new callable with a new
hash, so every call compiles again. `jax.jit(unjitted_loop_body)` in the same loop is fine:
JAX finds the cached compilation of the same function object.
"""

from functools import partial

import jax


def unjitted_loop_body(prev_i):
    return prev_i + 1


def g_inner_jitted_partial(x, n):
    i = 0
    while i < n:
        # Each partial object is new, so each call compiles.
        i = jax.jit(partial(unjitted_loop_body))(i)
    return x + i


def g_inner_jitted_lambda(x, n):
    i = 0
    while i < n:
        i = jax.jit(lambda x: unjitted_loop_body(x))(i)
    return x + i


def g_inner_jitted_normal(x, n):
    i = 0
    while i < n:
        i = jax.jit(unjitted_loop_body)(i)
    return x + i


def main() -> None:
    print(g_inner_jitted_partial(10, 5), g_inner_jitted_lambda(10, 5))
    print(g_inner_jitted_normal(10, 5))


if __name__ == "__main__":
    main()
