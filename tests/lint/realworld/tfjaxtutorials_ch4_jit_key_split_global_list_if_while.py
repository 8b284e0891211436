# source: https://github.com/AakashKumarNain/TF_JAX_tutorials/blob/ed6f75985f2f3a9e6651b30d6bd3673cc85a0578/src/notebooks/jax_tutorials/chapter_4_just_in_time_compilation.ipynb
#   (the notebook's code cells in order; `import requests`, `from jax.config import config`
#   (removed) and the `%config` magic dropped; W and X shrunk from [1000, 10000] and
#   [10000, 20000] to [100, 1000] and [1000, 2000]; the make_jaxpr cell of the dot product,
#   the forward_pass cell (the same key pattern again, on bigger arrays) and the closing
#   %timeit cell left out. Added: the __main__ block.)
# observed on jax 0.10.2 CPU: W is drawn from `key` and `key` is then split for X (with typed
#   keys and jax_debug_key_reuse the split raises KeyReuseError); the impure number_squared
#   appends a tracer to the global list when it is traced (the list holds one tracer after
#   the loop: the jitted calls reuse make_jaxpr's trace; the notebook's output shows two); square_or_cube's `if x % 2 == 0` and multiply_n_times's `while count < n` raise
#   TracerBoolConversionError under jit (the notebook catches and prints them). The
#   "Received:" print shows the tracer at trace time, as the notebook means it to.
# gap: other
import os
import time

import jax
import jax.numpy as jnp
from jax import jit, grad, random

def apply_activation(x):
    return jnp.maximum(0.0, x)

def get_dot_product(W, X):
    return jnp.dot(W, X)

# Always use a seed
key = random.PRNGKey(1234)
W = random.normal(key=key, shape=[100, 1000], dtype=jnp.float32)

# Never reuse the key
key, subkey = random.split(key)  # expect: JIT502
X = random.normal(key=subkey, shape=[1000, 2000], dtype=jnp.float32)

# JIT the functions we have
dot_product_jit  = jit(get_dot_product)
activation_jit = jit(apply_activation)

for i in range(3):
    start = time.time()
    # Don't forget to use `block_until_ready(..)`
    # else you will be recording dispatch time only
    Z = dot_product_jit(W, X).block_until_ready()
    end = time.time()
    print(f"Iteration: {i+1}")
    print(f"Time taken to execute dot product: {end - start:.2f} seconds", end="")

    start = time.time()
    A = activation_jit(Z).block_until_ready()
    print(f", activation function: {time.time()-start:.2f} seconds")

# Make jaxpr for the activation function
print(jax.make_jaxpr(activation_jit)(Z))

# We know that `print` introduces but impurity but it is
# also very useful to print values while debugging. How does
# jaxprs interpret that?

def number_squared(num):
    print("Received: ", num)  # tolerate: JIT203
    return num ** 2

# Compiled version
number_squared_jit = jit(number_squared)

# Make jaxprs
print(jax.make_jaxpr(number_squared_jit)(2))

# Subsequent calls to the jitted function
for i, num in enumerate([2, 4, 8]):
    print("Iteration: ", i+1)
    print("Result: ", number_squared_jit(num))
    print("="*50)

squared_numbers = []

# An impure function (using a global state)
def number_squared(num):
    global squared_numbers
    squared = num ** 2
    squared_numbers.append(squared)  # expect: JIT202
    return squared

# Compiled verison
number_squared_jit = jit(number_squared)

# Make jaxpr
print(jax.make_jaxpr(number_squared_jit)(2))

# Subsequent calls to the jitted function
for i, num in enumerate([4, 8, 16]):
    print("Iteration: ", i+1)
    print("Result: ", number_squared_jit(num))
    print("="*50)

# What's in the list?
print("\n Results in the global list")
squared_numbers

def square_or_cube(x):
    if x % 2 == 0:  # expect: JIT101
        return x ** 2
    else:
        return x * x * x


# JIT transformation
square_or_cube_jit = jit(square_or_cube)

# Run the jitted version on some sample data
try:
    val = square_or_cube_jit(2)
except Exception as ex:
    print(type(ex).__name__, ex)

def multiply_n_times(x, n):
    count = 0
    res = 1
    while count < n:  # expect: JIT102
        res = res * x
        count +=1
    return x


try:
    val = jit(multiply_n_times)(2, 5)
except Exception as ex:
    print(type(ex).__name__, ex)


if __name__ == "__main__":
    import traceback

    def raised_at(fn, *args):
        try:
            fn(*args)
        except Exception as err:
            frames = [f for e in (err, err.__cause__) if e is not None
                      for f in traceback.extract_tb(e.__traceback__)]
            return type(err).__name__, {f.lineno for f in frames if f.filename == __file__}
        return None, set()

    # observed: line 81 stored a tracer in the global list (make_jaxpr's trace, reused by the calls)
    assert len(squared_numbers) == 1
    assert all(isinstance(v, jax.core.Tracer) for v in squared_numbers)
    # observed: line 101 raises TracerBoolConversionError under jit
    name, lines = raised_at(square_or_cube_jit, 2)  # tolerate: JIT101
    assert name == "TracerBoolConversionError" and 101 in lines, (name, lines)
    # observed: line 119 raises TracerBoolConversionError under jit
    name, lines = raised_at(jit(multiply_n_times), 2, 5)  # tolerate: JIT102
    assert name == "TracerBoolConversionError" and 119 in lines, (name, lines)

    # observed: line 32 splits the key W was drawn from: with typed keys the checker raises
    jax.config.update("jax_enable_custom_prng", True)  # PRNGKey returns a typed key
    jax.config.update("jax_debug_key_reuse", True)
    key = random.PRNGKey(1234)
    W = random.normal(key=key, shape=[100, 1000], dtype=jnp.float32)
    try:
        key, subkey = random.split(key)  # tolerate: JIT502
        raise SystemExit("no KeyReuseError")
    except jax.errors.KeyReuseError:
        pass
