import functools

import jax
import jax.numpy as jnp


def scaled(v, s):
    return v * s


def all_scales(v, scales):
    return [jax.jit(lambda x: x * s)(v) for s in scales]  # expect: JIT301


def all_scales_partial(v, scales):
    out = []
    for s in scales:
        f = jax.jit(functools.partial(scaled, s=s))  # expect: JIT301
        out.append(f(v))
    return out


scaled_jit = jax.jit(scaled)


def all_scales_ok(v, scales):
    return [scaled_jit(v, s) for s in scales]
