"""Euler integrator whose number of steps arrives as a traced argument."""

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def euler(y0, dt, num_steps):
    y = y0
    for _ in range(num_steps):  # expect: JIT104
        y = y + dt * (-y)
    return y


@jax.jit
def euler_fori(y0, dt, num_steps):
    return lax.fori_loop(0, num_steps, lambda i, y: y + dt * (-y), y0)


@jax.jit
def sum_rows(x):
    total = jnp.zeros(x.shape[1:])
    for i in range(x.shape[0]):
        total = total + x[i]
    return total


@jax.jit
def sum_first_three(x):
    total = 0.0
    for i in range(3):
        total = total + x[i]
    return total
