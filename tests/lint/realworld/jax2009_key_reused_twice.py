# source: https://github.com/jax-ml/jax/issues/2009
# observed on jax 0.10.2 CPU: a and b are the exact same values (the key is consumed twice).
# gap: other
import jax

key = jax.random.PRNGKey(0)
a = jax.random.uniform(key, (10, 10))
b = jax.random.uniform(key, (10, 10))  # expect: JIT502

if __name__ == "__main__":
    # observed: line 8 draws the same numbers as the draw above it
    assert (a == b).all()
