# source: https://github.com/jax-ml/jax/issues/16422 (jakevdp's reduced reproduction)
# observed on jax 0.10.2 CPU: runs clean: `jnp.where` selecting between two new-style keys
#   split inside `jax.vmap` (an AssertionError in 2023) works, and so does the same under
#   jit; each key is split once and its halves are used once. Added: jit in the __main__
#   block, which splits the same `keys` again on purpose to compare (JAX's key-reuse checker
#   names those two lines: tolerated).
# gap: other
import jax

def f(key):
  key1, key2 = jax.random.split(key)
  return jax.numpy.where(True, key1, key2)

keys = jax.random.split(jax.random.key(0), 5)
print(jax.vmap(f)(keys))


if __name__ == "__main__":
    out = jax.jit(jax.vmap(f))(keys)  # tolerate: JIT502
    expected = jax.vmap(lambda k: jax.random.split(k)[0])(keys)  # tolerate: JIT502
    assert (jax.random.key_data(out) == jax.random.key_data(expected)).all()
