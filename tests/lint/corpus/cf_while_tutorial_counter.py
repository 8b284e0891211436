import jax


def count_up(x, n):
    i = 0
    while i < n:  # expect: JIT102
        i += 1
    return x + i


count_up_jit = jax.jit(count_up)

count_up_static = jax.jit(count_up, static_argnames=["n"])


@jax.jit
def loop_body(prev_i):
    return prev_i + 1


def driver(x, n):
    i = 0
    while i < n:
        i = loop_body(i)
    return x + i
