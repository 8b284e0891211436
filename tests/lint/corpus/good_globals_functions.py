import dataclasses

import jax
import jax.numpy as jnp


@dataclasses.dataclass(frozen=True)
class Hyper:
    lr: float = 1e-3
    wd: float = 1e-4


HYPER = Hyper()
_act = jax.nn.gelu


@jax.jit
def _inner(x):
    return x * 2


@jax.jit
def update(p, g):
    g = g + HYPER.wd * p
    return _inner(p - HYPER.lr * _act(g))
