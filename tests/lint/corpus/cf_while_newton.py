"""Newton iteration for a square root, converging on a tolerance."""

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def newton_sqrt(a, tol=1e-6):
    x = a
    while jnp.abs(x * x - a) > tol:  # expect: JIT102
        x = 0.5 * (x + a / x)
    return x


@jax.jit
def newton_sqrt_lax(a, tol=1e-6):
    def cond(x):
        return jnp.abs(x * x - a) > tol

    def body(x):
        return 0.5 * (x + a / x)

    return lax.while_loop(cond, body, a)


@jax.jit
def fixed_iterations(a):
    x = a
    i = 0
    while i < 5:
        x = 0.5 * (x + a / x)
        i += 1
    return x
