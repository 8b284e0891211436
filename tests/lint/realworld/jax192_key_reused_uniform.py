# source: https://github.com/jax-ml/jax/issues/192 (the example in the 2024 comment on key
#   reuse)
# observed on jax 0.10.2 CPU: vals1 and vals2 are the same number: one key is consumed by
#   two draws. The comment ran it under jax.debug_key_reuse(True), which raises
#   KeyReuseError; it is run here without the flag. Added: the __main__ check.
# gap: other
import jax

key = jax.random.key(0)
vals1 = jax.random.uniform(key)
vals2 = jax.random.uniform(key)  # reused!  # expect: JIT502

if __name__ == "__main__":
    # observed: line 11 draws the same number as the draw above it
    assert vals1 == vals2
