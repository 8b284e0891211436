# source: https://github.com/phlippe/uvadlc_notebooks/blob/0da8037c7abc32f478ff6142acceb72dbcf088ee/docs/tutorial_notebooks/JAX/tutorial2/Introduction_to_JAX.ipynb
#   (UvA Deep Learning course, JAX tutorial 2 "Introduction to JAX+Flax", pseudo-random
#   numbers: cells 27, 29 and 31; the imports are cells 2 and 4, trimmed to those used)
# observed on jax 0.10.2 CPU: the tutorial's "non-desirable way": both `jax.random.normal(rng)`
#   draws are equal. Its fix then splits that same `rng`, which the first draw had already
#   consumed: JAX's key-reuse checker (`jax_debug_key_reuse`, which needs a typed key, so
#   `__main__` repeats the sequence with `jax.random.key(42)`) raises KeyReuseError there
#   ("Previously-consumed key passed to random_split at index 0").
# gap: other
import numpy as np
import jax

rng = jax.random.PRNGKey(42)

# A non-desirable way of generating pseudo-random numbers...
jax_random_number_1 = jax.random.normal(rng)
jax_random_number_2 = jax.random.normal(rng)  # expect: JIT502
print('JAX - Random number 1:', jax_random_number_1)
print('JAX - Random number 2:', jax_random_number_2)

# Typical random numbers in NumPy
np.random.seed(42)
np_random_number_1 = np.random.normal()
np_random_number_2 = np.random.normal()
print('NumPy - Random number 1:', np_random_number_1)
print('NumPy - Random number 2:', np_random_number_2)

rng, subkey1, subkey2 = jax.random.split(rng, num=3)  # We create 3 new keys  # expect: JIT502
jax_random_number_1 = jax.random.normal(subkey1)
jax_random_number_2 = jax.random.normal(subkey2)
print('JAX new - Random number 1:', jax_random_number_1)
print('JAX new - Random number 2:', jax_random_number_2)


if __name__ == "__main__":
    # observed: line 17 draws from the key the draw before it used: the two "random" numbers are equal
    key = jax.random.PRNGKey(42)
    assert jax.random.normal(key) == jax.random.normal(key)  # tolerate: JIT502
    # observed: line 28 splits the key the draws consumed: with a typed key, JAX's
    # key-reuse checker raises KeyReuseError at that split
    jax.config.update("jax_debug_key_reuse", True)
    key = jax.random.key(42)
    jax.random.normal(key)
    try:
        jax.random.split(key, num=3)  # tolerate: JIT502
    except jax.errors.KeyReuseError as e:
        assert "Previously-consumed key passed to random_split" in str(e), e
    else:
        raise AssertionError("no KeyReuseError")
