import jax
import jax.numpy as jnp

STEPS = 3


@jax.jit
def integrate(y):
    for _ in range(50_000):  # expect: JIT303
        y = y + 1e-5 * jnp.cos(y)
    return y


@jax.jit
def three_steps(y):
    for _ in range(STEPS):
        y = y + 0.1
    return y


@jax.jit
def over_list(y):
    for c in [0.1, 0.2, 0.3]:
        y = y * c
    return y
