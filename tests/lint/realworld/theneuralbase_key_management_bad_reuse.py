# source: https://theneuralbase.com/jax/learn/intermediate/best-practices-for-key-management/
#   (the page's "BAD: Key reuse" example, up to where its "GOOD" example begins)
# observed on jax 0.10.2 CPU: val1 and val2 are the same three numbers ("Equal? True"):
#   the second jr.normal draws from the key the first already used, which
#   jax_debug_key_reuse reports as a KeyReuseError. Added: the __main__ block.
# gap: other
import jax
import jax.numpy as jnp
import jax.random as jr
# BAD: Key reuse — produces identical values
key = jr.key(42)
val1 = jr.normal(key, shape=(3,))
val2 = jr.normal(key, shape=(3,)) # Same as val1!  # expect: JIT502
print("BAD - Reused key (identical):")
print(f"val1: {val1}")
print(f"val2: {val2}")
print(f"Equal? {jnp.allclose(val1, val2)}")
print()

if __name__ == "__main__":
    # observed: line 13 draws val2 from the key val1 used: the same numbers
    assert jnp.array_equal(val1, val2)
