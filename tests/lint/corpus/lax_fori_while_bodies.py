import jax.numpy as jnp
from jax import lax


def power_iteration(A, v0, iters):
    def body(i, v):
        v = A @ v
        if i % 10 == 0:  # expect: JIT101
            v = v / jnp.linalg.norm(v)
        return v

    return lax.fori_loop(0, iters, body, v0)


def bisect(f_vals, lo, hi):
    def cond_fun(carry):
        lo, hi = carry
        return hi - lo > 1e-6

    def body_fun(carry):
        lo, hi = carry
        mid = 0.5 * (lo + hi)
        go_left = f_vals(mid) > 0
        return lax.cond(go_left, lambda: (lo, mid), lambda: (mid, hi))

    return lax.while_loop(cond_fun, body_fun, (lo, hi))


def collatz_steps(n):
    def cond_fun(c):
        k, steps = c
        return k != 1

    def body_fun(c):
        k, steps = c
        while k % 2 == 0:  # expect: JIT102
            k = k // 2
        return 3 * k + 1, steps + 1

    return lax.while_loop(cond_fun, body_fun, (n, 0))
