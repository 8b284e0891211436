import jax.numpy as jnp

__all__ = ["dense", "gated", "residual"]


def dense(p, x):
    return x @ p["w"] + p["b"]


def gated(x, gate):
    if gate:  # expect: JIT101
        return x
    return jnp.zeros_like(x)


def residual(x, fx, use_skip=True):
    if use_skip:  # a Python flag, static at every call site below
        return x + fx
    return fx


def _private_helper(x):
    return x
