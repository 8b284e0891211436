# source: https://theneuralbase.com/jax/learn/intermediate/jax-prng-explicit-key-management/
#   (a lesson page, "JAX PRNG: explicit key management": its code up to the draw from
#   key1 again; the stored page ends in the middle of the print that follows it)
# observed on jax 0.10.2 CPU: random_nums_from_key1_again equals random_nums_from_key1:
#   the third draw uses key1, which the first draw already consumed (the lesson prints
#   it to show that reuse repeats the numbers). Added: the __main__ block.
# gap: other
import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(42)
print(f"Master key shape: {key.shape}")
print(f"Master key: {key}")
key1, key2 = jax.random.split(key)
print(f"\nAfter split:")
print(f"Key1: {key1}")
print(f"Key2: {key2}")
random_nums_from_key1 = jax.random.normal(key1, shape=(3,))
random_nums_from_key2 = jax.random.normal(key2, shape=(3,))
print(f"\nRandom from key1: {random_nums_from_key1}")
print(f"Random from key2: {random_nums_from_key2}")
random_nums_from_key1_again = jax.random.normal(key1, shape=(3,))  # expect: JIT502

if __name__ == "__main__":
    # observed: line 22 draws from key1 again: the same numbers as the first draw from it
    assert jnp.array_equal(random_nums_from_key1, random_nums_from_key1_again)
    assert not jnp.array_equal(random_nums_from_key1, random_nums_from_key2)
