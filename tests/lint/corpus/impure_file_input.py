import json

import jax
import jax.numpy as jnp
import numpy.random as npr


@jax.jit
def load_and_scale(x):
    with open("scale.json") as fh:  # expect: JIT204
        scale = json.load(fh)["scale"]
    return x * scale


@jax.jit
def jitter(x):
    return x + npr.randn(*x.shape)  # expect: JIT204


def read_scale(path):
    with open(path) as fh:
        return json.load(fh)["scale"]


def interactive_scale():
    return float(input("scale? "))
