# source: https://github.com/AakashKumarNain/TF_JAX_tutorials/blob/ed6f75985f2f3a9e6651b30d6bd3673cc85a0578/src/notebooks/jax_tutorials/chapter_2_pure_functions.ipynb
#   (the notebook's code cells in order; the `%config` magic dropped. Added: the __main__
#   block.)
# observed on jax 0.10.2 CPU: the jitted add_global_value reads `counter` when it is traced:
#   after `counter = 10` the second call with the same input still returns 7, and later
#   calls with the cached signature keep the stale value; the fori_loop body calls
#   next(iterator) once, at trace time, so the sum over the iterator is 0, not 10; the
#   jitted return_as_it_is prints its message on the first call only.
# gap: stale-state-attributes
import numpy as np

import jax
import jax.numpy as jnp

from jax import grad
from jax import jit
from jax import lax
from jax import random

# A global variable
counter = 5

def add_global_value(x):
    """
    A function that relies on the global variable `counter` for
    doing some computation.
    """
    return x + counter  # expect: JIT201

x = 2

# We will `JIT` the function so that it runs as a JAX transformed
# function and not like a normal python function
y = jit(add_global_value)(x)
print("Global variable value: ", counter)
print(f"First call to the function with input {x} with global variable value {counter} returned {y}")

# Someone updated the global value later in the code
counter = 10

# Call the function again
y = jit(add_global_value)(x)
print("\nGlobal variable changed value: ", counter)
print(f"Second call to the function with input {x} with global variable value {counter} returned {y}")

# Change the type of the argument passed to the function
# In this case we will change int to float (2 -> 2.0)
x = 2.0
y = jit(add_global_value)(x)
print(f"Third call to the function with input {x} with global variable value {counter} returned {y}")

# Change the shape of the argument
x = jnp.array([2])

# Changing global variable value again
counter = 15

# Call the function again
y = jit(add_global_value)(x)
print(f"Third call to the function with input {x} with global variable value {counter} returned {y}")

def apply_sin_to_global():
    return jnp.sin(jnp.pi / counter)

y = apply_sin_to_global()
print("Global variable value: ", counter)
print(f"First call to the function with global variable value {counter} returned {y}")


# Change the global value again
counter = 90
y = apply_sin_to_global()
print("\nGlobal variable value: ", counter)
print(f"Second call to the function with global variable value {counter} returned {y}")

# A function that takes an actual array object
# and add all the elements present in it
def add_elements(array, start, end, initial_value=0):
    res = 0
    def loop_fn(i, val):
        return val + array[i]
    return lax.fori_loop(start, end, loop_fn, initial_value)


# Define an array object
array = jnp.arange(5)
print("Array: ", array)
print("Adding all the array elements gives: ", add_elements(array, 0, len(array), 0))


# Redefining the same function but this time it takes an
# iterator object as an input
def add_elements(iterator, start, end, initial_value=0):
    res = 0
    def loop_fn(i, val):
        return val + next(iterator)  # expect: JIT202
    return lax.fori_loop(start, end, loop_fn, initial_value)


# Define an iterator
iterator = iter(np.arange(5))
print("\n\nIterator: ", iterator)
print("Adding all the elements gives: ", add_elements(iterator, 0, 5, 0))

def return_as_it_is(x):
    """Returns the same element doing nothing. A function that isn't
    using `globals` or any `iterator`
    """
    print(f"I have received the value")  # expect: JIT203
    return x


# First call to the function
print(f"Value returned on first call: {jit(return_as_it_is)(2)}\n")

# Second call to the fucntion with different value
print(f"Value returned on second call: {jit(return_as_it_is)(4)}")

# Function that uses stateful objects but internally and is still pure
def pure_function_with_stateful_obejcts(array):
    array_dict = {}
    for i in range(len(array)):
        array_dict[i] = array[i] + 10
    return array_dict


array = jnp.arange(5)

# First call to the function
print(f"Value returned on first call: {jit(pure_function_with_stateful_obejcts)(array)}")

# Second call to the fucntion with different value
print(f"\nValue returned on second call: {jit(pure_function_with_stateful_obejcts)(array)}")


if __name__ == "__main__":
    import contextlib
    import io

    # observed: line 28 was read at trace time: counter is 90 now, the int call still adds 5
    assert counter == 90 and int(jit(add_global_value)(2)) == 7
    # observed: line 96 runs next() once, when the body is traced: the sum is 0, not 10
    assert int(add_elements(iter(np.arange(5)), 0, 5, 0)) == 0
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        jit(return_as_it_is)(8)
        jit(return_as_it_is)(16)
    # observed: line 109 printed on the module's first call only; these two calls print nothing
    assert "I have received" not in out.getvalue(), out.getvalue()
