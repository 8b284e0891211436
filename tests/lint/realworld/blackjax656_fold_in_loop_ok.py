# source: https://github.com/blackjax-devs/blackjax/pull/656 (both patterns of the
#   description: split-and-carry, and the recommended fold_in; fewer steps)
# observed on jax 0.10.2 CPU: runs clean; fold_in(key, step) derives a new key each step,
#   so the same key is never consumed twice by a sampler.
# gap: other
import jax
key = jax.random.key(42)

for step in range(100):
  key, subkey = jax.random.split(key, 2)
  values = jax.random.normal(subkey, [3, 5])
  # ... use values ...

key = jax.random.key(42)
for step in range(100):
  subkey = jax.random.fold_in(key, step)
  values = jax.random.normal(subkey, [3, 5])
  # ... use values ...

if __name__ == "__main__":
    with jax.debug_key_reuse(True):
        for step in range(3):
            subkey = jax.random.fold_in(key, step)
            values = jax.random.normal(subkey, [3, 5])
