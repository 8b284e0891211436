"""Static arguments that are hashable: tuples, strings, ints, frozen dataclasses."""

import dataclasses
from functools import partial

import jax
import jax.numpy as jnp


@dataclasses.dataclass(frozen=True)
class Config:
    hidden: int = 128
    act: str = "relu"


@partial(jax.jit, static_argnames=("cfg", "shape", "mode"))
def forward(x, cfg, shape, mode="train"):
    h = x.reshape(shape) * cfg.hidden
    if mode == "train":
        h = h * 0.9
    return h


def run(x):
    a = forward(x, Config(), (2, -1))
    b = forward(x, cfg=Config(hidden=64), shape=(4, -1), mode="eval")
    dims = [2, -1]
    c = forward(x, Config(), tuple(dims))
    d = jnp.stack([a.sum(), b.sum(), c.sum()])
    return d
