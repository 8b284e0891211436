# source: https://github.com/arampatzis-teaching/damsl-281-2025/blob/c71f3c269bc7c99ef75b7aeeb85f9e78db63e0aa/lecture-notes/code/notebooks/04-flax/02-jax.ipynb
#   (a university course's lecture notebook "JAX": immutability, random numbers, jit of selu)
# observed on jax 0.10.2 CPU: `x_jax[0] = 99` raises TypeError (caught by the notebook's
#   try/except); r1 and r2 are drawn from one key and are equal; the benchmark input x_large is
#   drawn from random.key(42), the key the "all at once" cell already drew from, so its first
#   three numbers are exactly that cell's three numbers (jax_threefry_partitionable is on).
#   JAX's key-reuse checker (recording every reuse) names lines 68, 77 and 96: line 77
#   splits the used key, tolerated. Line 91 redraws from the subkeys line 85 drew from, on
#   purpose (the notebook shows "vectorized" equals "individually"), tolerated as a replay.
#   Kept: the code cells in notebook order; the %timeit lines of the benchmark cell are
#   replaced by plain calls. Added: the __main__ block.
# gap: other
import jax
import jax.numpy as jnp
import numpy as np
from jax import random

# JAX arrays look like Numpy arrays
x_np = np.arange(10)
x_jax = jnp.arange(10)

print(f"Numpy: {type(x_np)}")
print(f"JAX:   {type(x_jax)}")

# They operate identically for math
print(np.sin(x_np))
print(jnp.sin(x_jax))

# --- STANDARD NUMPY (Mutable) ---
x_np[0] = 99
print(f"Numpy mutation works: {x_np}")

# --- JAX (Immutable) ---
try:
    x_jax[0] = 99 # This raises a TypeError  # expect: JIT501
except TypeError as e:
    print(f"\nError caught: {e}")

# The JAX Way: Create a NEW array with the update
y_jax = x_jax.at[0].set(99)

print(f"Original JAX array (unchanged): {x_jax}")
print(f"New JAX array (updated):        {y_jax}")

print("Numpy is mutable:")
numpy_array = np.array([10, 20])
numpy_array_new = numpy_array
numpy_array_new += 10
print(numpy_array_new)  # `numpy_array_new is numpy_array`, and it was updated
print(numpy_array)      # in-place, so both are [20, 30] !


print("\nJAX is immutable:")
jax_array = jnp.array([10, 20])
jax_array_new = jax_array
jax_array_new += 10
print(jax_array_new)  # `jax_array_new` is rebound to a new value [20, 30], but...
print(jax_array)      # the original value is unmodified as [10, 20] !

seed = 0
key = jax.random.PRNGKey(seed)

print(f"Initial Key: {key}")

# Generating random numbers
# Notice: If we re-use 'key', we get the SAME numbers.
r1 = jax.random.normal(key, shape=(3,))
r2 = jax.random.normal(key, shape=(3,))  # expect: JIT502

print(f"Random 1: {r1}")
print(f"Random 2: {r2}")
print("They are identical! This ensures absolute reproducibility.")

# Split the key into:
# 1. A key to use NOW (sub_key)
# 2. A key to save for LATER (new_key)
key, sub_key = jax.random.split(key)  # tolerate: JIT502

r3 = jax.random.normal(sub_key, shape=(3,))
print(f"New Random 3: {r3}")
print("This is finally different.")

key = random.key(42)
subkeys = random.split(key, 3)
sequence = np.stack([random.normal(subkey) for subkey in subkeys])
print("individually:", sequence)

key = random.key(42)
print("all at once: ", random.normal(key, shape=(3,)))

print("vectorized:", jax.vmap(random.normal)(subkeys))  # tolerate: JIT502

def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

x_large = jax.random.normal(key, (1_000_000,))  # expect: JIT502

# 1. Python/JAX (Interpreted Mode)
# It runs operation-by-operation (slow dispatch).
selu(x_large).block_until_ready()

# 2. JIT Compiled
# Compiles the whole function into a single XLA kernel.
selu_jit = jax.jit(selu)

# Warm-up call (compilation happens here)
selu_jit(x_large).block_until_ready()

# Benchmark the compiled version
selu_jit(x_large).block_until_ready()


if __name__ == "__main__":
    import traceback

    # observed: line 35 raises TypeError: JAX arrays are immutable
    try:
        x_jax[0] = 99  # tolerate: JIT501
    except TypeError as e:
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        assert frames[-1].line.startswith("x_jax[0] = 99")
    else:
        raise AssertionError("no TypeError")
    assert int(x_jax[0]) == 0

    # observed: line 68 draws r2 from the key r1 came from: the same three numbers
    assert (np.asarray(r1) == np.asarray(r2)).all()

    # observed: line 96 draws the benchmark input from random.key(42), already used for the
    # "all at once" draw: its first numbers repeat that draw exactly
    all_at_once = random.normal(random.key(42), shape=(3,))
    assert (np.asarray(x_large[:3]) == np.asarray(all_at_once)).all()
    assert jnp.allclose(selu_jit(x_large), selu(x_large), atol=1e-5)
