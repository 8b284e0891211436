import jax
import jax.numpy as jnp


def make_counter():
    count = 0

    def tick():
        nonlocal count
        count += 1
        return count

    return tick


@jax.jit
def f(x):
    return x + 1


def driver(xs):
    tick = make_counter()
    outs = []
    for x in xs:
        outs.append(f(x))
        tick()
    return outs
