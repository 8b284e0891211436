"""Diffrax ODE solve whose vector field branches on the state."""

import diffrax
import jax
import jax.numpy as jnp


def vector_field(t, y, args):
    k = args
    if y[0] < 0:  # expect: JIT101
        return -k * y
    return k * y


def vector_field_ok(t, y, args):
    k = args
    return jnp.where(y[0] < 0, -k, k) * y


@jax.jit
def solve(y0, k):
    term = diffrax.ODETerm(vector_field)
    sol = diffrax.diffeqsolve(term, diffrax.Tsit5(), t0=0.0, t1=1.0, dt0=0.01, y0=y0, args=k)
    return sol.ys
