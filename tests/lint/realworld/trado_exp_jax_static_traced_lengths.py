# source: https://github.com/takayama-rado/trado_samples/blob/f48f6d33275e4e82cae1ec6497c5f7ecec5b8f6f/colab_files/exp_jax_static.ipynb
#   (a blog sample notebook exploring jit and static arguments; cells 1 and 3-14 as posted,
#   the version printout and the trace-print cell 16 left out)
# observed on jax 0.10.2 CPU: every `try` prints its error. jit(example_fun1)(10, 4) raises
#   TypeError ("Shapes must be 1D sequences of concrete values of integer type") at
#   jnp.ones([length,]): length is a tracer. jit(example_fun3)(arr, 4) raises the same at
#   the jnp.ones of example_fun3: length comes from array.sum(). With static_argnums=(0,)
#   and a jax array, the call raises ValueError (non-hashable static argument). With the
#   array wrapped in HashableArrayWrapper the call hashes, but array.sum() is still a jnp
#   operation under jit, so length is a tracer again and jnp.ones raises once more.
#   Added: the __main__ block, which catches each error and checks its line.
# gap: omnistaging
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
    return jnp.ones([length,]) * val  # expect: JIT404

print(example_fun1(10, 4))
print(example_fun1(5, 4))

example_jit1 = jit(example_fun1)
# This will fail.
try:
    print(example_jit1(10, 4))
except Exception as inst:
    print(inst)

example_jit1 = jit(example_fun1, static_argnums=(0,))
print(example_jit1(10, 4))
print(example_jit1(5, 4))

def example_fun2(array, val):
    return jnp.ones([array.shape[0],]) * val

arr = jnp.ones([10])
print(example_fun2(arr, 4))
print(example_fun2(arr[:5], 4))

def example_fun3(array, val):
    length = array.sum().astype(jnp.int32)
    return jnp.ones([length,]) * val  # expect: JIT404

arr = jnp.ones([10])
print(arr)
print(example_fun3(arr, 4))

arr = arr.at[5:].set(0)
print(arr)
print(example_fun3(arr, 4))

arr = jnp.ones([10])
example_jit3 = jit(example_fun3)
# This will fail.
try:
    print(example_jit3(arr, 4))
except Exception as inst:
    print(inst)

example_jit3 = jit(example_fun3, static_argnums=(0,))
arr = jnp.ones([10])
print(arr)
# This will fail.
try:
    print(example_jit3(arr, 4))  # expect: JIT302
except Exception as inst:
    print(inst)

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
arr = jnp.ones([10])
print(arr)
# This will fail.
try:
    print(example_jit3(HashableArrayWrapper(arr), 4))
except Exception as inst:
    print(inst)


if __name__ == "__main__":
    import traceback

    def failing_line(call):
        try:
            call()
        except Exception as e:
            frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
            return type(e).__name__, frames[-1].lineno
        raise AssertionError("no error")

    # observed: line 27 raises TypeError under jit(example_fun1): length is traced
    assert failing_line(lambda: jit(example_fun1)(10, 4)) == ("TypeError", 27)
    # observed: line 52 raises TypeError under jit(example_fun3), and again with the
    # jax array behind HashableArrayWrapper as the static argument (array.sum() is traced)
    assert failing_line(lambda: jit(example_fun3)(jnp.ones([10]), 4)) == ("TypeError", 52)
    assert failing_line(lambda: example_jit3(HashableArrayWrapper(jnp.ones([10])), 4)) == ("TypeError", 52)
    # observed: line 75 passes a jax array as a static argument: ValueError, not hashable
    assert failing_line(lambda: jit(example_fun3, static_argnums=(0,))(jnp.ones([10]), 4))[0] == "ValueError"  # tolerate: JIT302
