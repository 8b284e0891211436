"""Fix: create the jitted function once, outside the loop."""

import jax


def unjitted_loop_body(prev_i):
    return prev_i + 1


loop_body = jax.jit(unjitted_loop_body)


def g_inner_jitted(x, n):
    i = 0
    while i < n:
        i = loop_body(i)
    return x + i


def main() -> None:
    print(g_inner_jitted(10, 5))


if __name__ == "__main__":
    main()
