"""Fix: make `n` static, or jit only the loop body and drive the loop from Python."""

from functools import partial

import jax


def g(x, n):
    i = 0
    while i < n:
        i += 1
    return x + i


g_jit_correct = jax.jit(g, static_argnames=["n"])


@partial(jax.jit, static_argnames=["n"])
def g_jit_decorated(x, n):
    i = 0
    while i < n:
        i += 1
    return x + i


@jax.jit
def loop_body(prev_i):
    return prev_i + 1


def g_inner_jitted(x, n):
    i = 0
    while i < n:
        i = loop_body(i)
    return x + i


def main() -> None:
    print(g_jit_correct(10, 20), g_jit_decorated(10, 20), g_inner_jitted(10, 20))


if __name__ == "__main__":
    main()
