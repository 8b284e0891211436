# source: https://theneuralbase.com/jax/learn/beginner/random-state-management/
#   (a beginner lesson page, "Random state management": its code up to the second draw
#   from key1; the stored page ends in the print that follows it)
# observed on jax 0.10.2 CPU: samples1_again equals samples1: key1 is drawn from twice.
#   Added: the __main__ block.
# gap: other
import jax
import jax.numpy as jnp
import jax.random as jr

key = jr.PRNGKey(42)
print(f"Initial key: {key}")
key1, key2 = jr.split(key)
print(f"Child key 1: {key1}")
print(f"Child key 2: {key2}")
samples1 = jr.normal(key1, shape=(3,))
samples2 = jr.normal(key2, shape=(3,))
print(f"Samples from key1: {samples1}")
print(f"Samples from key2: {samples2}")
samples1_again = jr.normal(key1, shape=(3,))  # expect: JIT502

if __name__ == "__main__":
    # observed: line 20 draws from key1 a second time: the numbers of samples1 again
    assert jnp.array_equal(samples1, samples1_again)
