import jax
import jax.numpy as jnp
from jax import lax


def branch_a(x):
    scale = x.sum().item()  # expect: JIT401
    return x * scale


def branch_b(x):
    return x


def choose(p, x):
    return lax.cond(p, branch_a, branch_b, x)
