# source: https://github.com/takayama-rado/trado_samples/blob/f48f6d33275e4e82cae1ec6497c5f7ecec5b8f6f/colab_files/exp_jax_static.ipynb
#   (the same blog sample notebook: cells 1, 3, 6, 9, 13 and 15, the workarounds it settles on)
# observed on jax 0.10.2 CPU: example_fun1 with `length` static works (10, then 5 values).
#   example_fun3 jitted with its array argument static gets a NumPy array behind
#   HashableArrayWrapper (the workaround of jax#4572), and array.sum() is read at trace time.
#   After `arr[5:] = 0` mutates that same array in place, the second call prints ten 4.0s
#   again: the wrapper cached with the first trace holds the mutated array too, so it now
#   hashes and compares equal to the new key and jit reuses the length-10 program (the
#   notebook, run on jax 0.4.16, printed five). A wrapper of a fresh array of five ones is
#   served the same stale program. Added: the __main__ block.
# gap: stale-state-attributes
# Standard modules.
import sys

# CV/ML.
import numpy as np

import jax
import jax.numpy as jnp
from jax import jit

# Enable float64.
jax.config.update("jax_enable_x64", True)

def example_fun1(length, val):
    return jnp.ones([length,]) * val

example_jit1 = jit(example_fun1, static_argnums=(0,))
print(example_jit1(10, 4))
print(example_jit1(5, 4))

def example_fun3(array, val):
    length = array.sum().astype(jnp.int32)  # expect: JIT201
    return jnp.ones([length,]) * val

from typing import Generic, TypeVar
from functools import partial

T = TypeVar('T')      # Declare type variable

# Workaround to avoid unhashable error.
# https://github.com/google/jax/issues/4572
class HashableArrayWrapper(Generic[T]):
    def __init__(self, val: T):
        self.val = val

    def __getattribute__(self, prop):
        if prop == 'val' or prop == "__hash__" or prop == "__eq__":
            return super(HashableArrayWrapper, self).__getattribute__(prop)
        return getattr(self.val, prop)

    def __getitem__(self, key):
        return self.val[key]

    def __setitem__(self, key, val):
        self.val[key] = val

    def __hash__(self):
        return hash(self.val.tobytes())

    def __eq__(self, other):
        if isinstance(other, HashableArrayWrapper):
            return self.__hash__() == other.__hash__()

        f = getattr(self.val, "__eq__")
        return f(self, other)

example_jit3 = jit(example_fun3, static_argnums=(0,))
arr = np.ones([10])
print(arr)
print(example_jit3(HashableArrayWrapper(arr), 4))
arr[5:] = 0
print(example_jit3(HashableArrayWrapper(arr), 4))


if __name__ == "__main__":
    # observed: line 33 reads the static array at trace time only: after arr[5:] = 0 the
    # call still returns ten values, and so does a fresh wrapper of a fresh array
    assert example_jit3(HashableArrayWrapper(arr), 4).shape == (10,)
    fresh = np.ones([10])
    fresh[5:] = 0
    assert example_jit3(HashableArrayWrapper(fresh), 4).shape == (10,)
    assert example_fun3(HashableArrayWrapper(fresh), 4).shape == (5,)
