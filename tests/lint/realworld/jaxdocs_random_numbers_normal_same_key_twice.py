# source: https://github.com/jax-ml/jax/blob/225a2a5f8bfe710e6a4aecb182d5bdd87683193b/docs/random-numbers.md
#   ("Explicit random state": the cell that feeds one key to random.normal twice, followed
#   in the document by "never reuse keys")
# observed on jax 0.10.2 CPU: both calls print the same number: random functions consume a
#   key without changing it, so the second draw repeats the first; with
#   jax_debug_key_reuse enabled the second call raises KeyReuseError. The __main__ block is
#   added and repeats the two draws to compare them.
# gap: other
from jax import random

key = random.key(42)
print(key)

print(random.normal(key))
print(random.normal(key))  # expect: JIT502


if __name__ == "__main__":
    a = random.normal(key)  # tolerate: JIT502
    b = random.normal(key)  # tolerate: JIT502
    # observed: line 15 draws the same value as the draw just before it
    assert float(a) == float(b)
