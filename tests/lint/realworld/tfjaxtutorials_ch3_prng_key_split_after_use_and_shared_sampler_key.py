# source: https://github.com/AakashKumarNain/TF_JAX_tutorials/blob/ed6f75985f2f3a9e6651b30d6bd3673cc85a0578/src/notebooks/jax_tutorials/chapter_3_prng.ipynb
#   (the notebook's JAX cells in order, from `from jax import random` on; the NumPy seeding
#   cells before them, one of which needs joblib, and the NumPy sampler cell after them are
#   left out, as is the `%config` magic; the bare `key` display cell kept as an expression.
#   Added: the __main__ block.)
# observed on jax 0.10.2 CPU: `key` draws random_integers and is then split for the next
#   draws (with typed keys and jax_debug_key_reuse the split raises KeyReuseError), and
#   sampler1 and sampler2 draw from the same key, so the second sample is exactly twice the
#   first.
# gap: other
import numpy as np

import jax
from jax import jit
import jax.numpy as jnp

from jax import random

# Define a state
seed = 1234
key = random.PRNGKey(1234)
key

# Passing the original key to a random function
random_integers = random.randint(key=key, minval=0, maxval=10, shape=[5])
print(random_integers)

# What if we want to call another function?
# Don't use the same key. Split the original key, and then pass it
print("Original key: ", key)

# Split the key. By default the number of splits is set to 2
# You can specify explicitly how many splits you want to do
key, subkey = random.split(key, num=2)  # expect: JIT502

print("New key: ",  key)
print("Subkey: ", subkey)

# Call another random function with the new key
random_floats = random.normal(key=key, shape=(5,), dtype=jnp.float32)
print(random_floats)

# Splitting is deterministic!

for i in range(5):
    key = random.PRNGKey(1234)
    print(f"Iteration: {i+1}\n")
    print(f"Original key: {key}")
    key, subkey = random.split(key)
    print(f"First subkey: {key}")
    print(f"Second subkey: {subkey}")
    print("="*50)
    print("")

# You can generate multiple keys at one go with one split
key = random.PRNGKey(111)
print(f"Original key: {key}\n")

subkeys = random.split(key, num=5)

for i, subkey in enumerate(subkeys):
    print(f"Subkey no: {i+1}  Subkey: {subkey}")

# No more Sequential Equivalent Guarantee unlike numpy

key = random.PRNGKey(1234)
random_integers_1 = random.randint(key=key, minval=0, maxval=10, shape=(5,))

key = random.PRNGKey(1234)
key, *subkeys = random.split(key, 5)
random_integers_2 = []

for subkey in subkeys:
    num = random.randint(key=subkey, minval=0, maxval=10, shape=(1,))
    random_integers_2.append(num)

random_integers_2 = np.stack(random_integers_2, axis=-1)[0]

print("Generated all at once: ", random_integers_1)
print("Generated sequentially: ", random_integers_2)

# Possible highly correlated outputs.
# Not a very good example but serves the demonstration purpose

def sampler1(key):
    return random.uniform(key=key, minval=0, maxval=1, shape=(2,))

def sampler2(key):
    return 2 * random.uniform(key=key, minval=0, maxval=1, shape=(2,))

key = random.PRNGKey(0)
sample_1 = sampler1(key=key)
sample_2 = sampler2(key=key)  # expect: JIT502

print("First sample: ", sample_1)
print("Second sample: ", sample_2)


if __name__ == "__main__":
    # observed: line 93 draws from the key sampler1 drew from: the samples repeat, doubled
    assert jnp.allclose(sample_2, 2 * sample_1)

    # observed: line 34 splits the key random_integers was drawn from: the checker raises
    jax.config.update("jax_enable_custom_prng", True)  # PRNGKey returns a typed key
    jax.config.update("jax_debug_key_reuse", True)
    key = random.PRNGKey(1234)
    random_integers = random.randint(key=key, minval=0, maxval=10, shape=[5])
    try:
        key, subkey = random.split(key, num=2)  # tolerate: JIT502
        raise SystemExit("no KeyReuseError")
    except jax.errors.KeyReuseError:
        pass
