# source: https://errorhandle.ai/how-to-handle-prng-splitting-in-a-jax-vmap-context
#   (a Q&A page, "How to handle PRNG splitting in a jax.vmap context?": the answer's example)
# observed on jax 0.10.2 CPU: runs clean; one split key per batch element, so the three
#   draws differ. Added: the __main__ block, which checks them and runs the vmapped
#   function under jit on keys split from another seed.
# gap: other
import jax
import jax.numpy as jnp

# Function requiring randomness
def random_function(key, x):
    return jax.random.normal(key, shape=()) + x

# PRNG key
key = jax.random.PRNGKey(42)

# Input batch
x_batch = jnp.array([1.0, 2.0, 3.0])

# Split the key for each batch element
keys = jax.random.split(key, num=len(x_batch))

# Vectorized function
vmap_func = jax.vmap(random_function, in_axes=(0, 0))

# Apply the vectorized function
result = vmap_func(keys, x_batch)
print(result)

if __name__ == "__main__":
    noise = result - x_batch
    assert len(set(noise.tolist())) == 3
    fresh = jax.random.split(jax.random.PRNGKey(7), num=len(x_batch))
    assert jax.jit(vmap_func)(fresh, x_batch).shape == (3,)
