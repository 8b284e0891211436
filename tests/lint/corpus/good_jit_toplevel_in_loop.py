"""Calling jax.jit on the same top-level function inside a loop reuses the cache."""

import jax
import jax.numpy as jnp


def body(i, x):
    return x * 0.5 + i


def scale(x, factor):
    return x * factor


def run(x, n):
    for i in range(n):
        x = jax.jit(body)(i, x)
    for f in (0.5, 2.0):
        x = jax.jit(scale, static_argnums=1)(x, f)
    return x


compiled = {}


def cached(fn):
    if fn not in compiled:
        compiled[fn] = jax.jit(fn)
    return compiled[fn]


def run_cached(x, fns):
    for fn in fns:
        x = cached(fn)(x)
    return x
