# source: https://github.com/jax-ml/jax/issues/5549 (the maintainer's answer: one block of
#   split keys for a double vmap)
# observed on jax 0.10.2 CPU: runs clean and the four draws differ: every (i, j) gets its
#   own key from a single split.
# gap: other
import jax

def f(key):
  return jax.random.normal(key, [])

i = 2
j = 2
key = jax.random.PRNGKey(42)
key = jax.random.split(key, i * j).reshape((i, j) + key.shape)
jax.vmap(jax.vmap(f))(key)

if __name__ == "__main__":
    out = jax.vmap(jax.vmap(f))(key)
    assert out.shape == (2, 2) and len(set(out.ravel().tolist())) == 4
