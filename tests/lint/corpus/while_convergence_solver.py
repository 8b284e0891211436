"""Iterative solvers with data-dependent stopping rules."""

import jax
import jax.numpy as jnp
from jax import lax


def _residual(A, x, b):
    return jnp.linalg.norm(A @ x - b)


@jax.jit
def jacobi(A, b, tol=1e-5, max_iter=100):
    x = jnp.zeros_like(b)
    d = jnp.diag(A)
    it = 0
    while _residual(A, x, b) > tol and it < max_iter:  # expect: JIT102  # tolerate: JIT103
        x = (b - (A @ x - d * x)) / d
        it += 1
    return x


@jax.jit
def jacobi_ok(A, b, tol=1e-5, max_iter=100):
    d = jnp.diag(A)

    def cond(c):
        x, it = c
        return (_residual(A, x, b) > tol) & (it < max_iter)

    def body(c):
        x, it = c
        return (b - (A @ x - d * x)) / d, it + 1

    return lax.while_loop(cond, body, (jnp.zeros_like(b), 0))[0]


def jacobi_host(A, b, tol=1e-5):
    x = jnp.zeros_like(b)
    d = jnp.diag(A)
    while _residual(A, x, b) > tol:
        x = (b - (A @ x - d * x)) / d
    return x
