"""Python loops with large constant trip counts unroll into huge programs."""

import jax
import jax.numpy as jnp
from jax import lax

NUM_STEPS = 10_000


@jax.jit
def simulate(x, v):
    for _ in range(NUM_STEPS):  # expect: JIT303
        v = v - 0.001 * x
        x = x + 0.001 * v
    return x, v


@jax.jit
def cumulative(x):
    total = jnp.zeros(())
    for i in range(4096):  # expect: JIT303
        total = total + jnp.sin(x * i)
    return total


@jax.jit
def simulate_ok(x, v):
    def body(_, c):
        x, v = c
        v = v - 0.001 * x
        return x + 0.001 * v, v

    return lax.fori_loop(0, NUM_STEPS, body, (x, v))


@jax.jit
def small_unroll(x):
    for k in range(4):
        x = jnp.roll(x, k)
    return x


def host_loop(x):
    for _ in range(100_000):
        x = x * 0.999
    return x
