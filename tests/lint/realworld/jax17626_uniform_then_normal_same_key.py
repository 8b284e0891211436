# source: https://github.com/jax-ml/jax/pull/17626 (the example in the description; the PR's
#   draft `jax.random.check_key_reuse()` was never released and is spelled with its released
#   form, `jax.debug_key_reuse(True)`, which does not check a legacy uint32 key such as
#   PRNGKey(0), so the block runs; the __main__ block repeats the two draws to compare them)
# observed on jax 0.10.2 CPU: normal(key) is computed from the same random bits as
#   uniform(key): it equals sqrt(2) * erfinv(2 * u - 1) of the uniform draw, so the two
#   "random" numbers are fully dependent.
# gap: other
import jax

key = jax.random.PRNGKey(0)

with jax.debug_key_reuse(True):
  jax.random.uniform(key)
  jax.random.normal(key)  # expect: JIT502

if __name__ == "__main__":
  import jax.numpy as jnp
  from jax.scipy.special import erfinv

  for seed in range(5):
    k = jax.random.PRNGKey(seed)
    u = jax.random.uniform(k)
    n = jax.random.normal(k)  # tolerate: JIT502
    # observed: line 15 draws from the key the uniform draw above it used: the normal is a function of it
    assert jnp.allclose(n, jnp.sqrt(2.0) * erfinv(2 * u - 1), atol=1e-5), (seed, u, n)
