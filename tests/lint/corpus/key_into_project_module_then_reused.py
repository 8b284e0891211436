"""A project class whose `__init__` draws from the key it is given, then the same key drawn
from again: the noise repeats the weights' numbers. A record that only stores the key
(`Carry(x, key=key)`) draws nothing."""

from typing import NamedTuple

import jax


class Layer:
    def __init__(self, n, key):
        self.w = jax.random.normal(key, (n,))


class Carry(NamedTuple):
    x: jax.Array
    key: jax.Array


key = jax.random.key(0)
layer = Layer(3, key=key)
noise = jax.random.normal(key, (3,))  # expect: JIT502
assert (noise == layer.w).all()
state = Carry(noise, key=key)
