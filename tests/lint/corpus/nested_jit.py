from jax import jit, lax
import jax.numpy as jnp


def make_solver(n_iter):
    @jit
    def solve(A, b):
        x = jnp.zeros_like(b)
        for _ in range(n_iter):
            x = x + 0.1 * (b - A @ x)
        r = jnp.linalg.norm(A @ x - b)
        while r > 1e-3:  # expect: JIT102
            x = x + 0.1 * (b - A @ x)
            r = jnp.linalg.norm(A @ x - b)
        return x

    return solve
