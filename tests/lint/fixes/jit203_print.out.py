"""Prints in traced code become jax.debug.print, with literal text in the format string."""
from functools import partial

import jax.numpy as jnp
from jax import jit
import jax


@jit
def step(x, lr):
    jax.debug.print("step: x = {} lr = {}", x, lr)
    jax.debug.print("loss {:.3f} grad {!r} {{raw}}", jnp.sum(x), x)  # JIT401 (a spec on a tracer) has no fix: this one removes it
    jax.debug.print("{} | {}", x, lr)
    print()  # not flagged: an empty print says nothing about when it runs
    jax.debug.print("100% {{done}} {}", x)
    return x - lr


@partial(jit, static_argnums=1)
def untouched(x, n):
    print(x, file=None)  # no fix: file= cannot be reproduced
    print(*x)  # no fix: *args
    print(x, end="")  # no fix: jax.debug.print always ends the line
    return x * n
