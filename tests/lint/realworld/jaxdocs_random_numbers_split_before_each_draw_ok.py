# source: https://github.com/jax-ml/jax/blob/225a2a5f8bfe710e6a4aecb182d5bdd87683193b/docs/random-numbers.md
#   ("Explicit random state" and "Lack of sequential equivalence": the split loop, the
#   many-way split, and the per-subkey draws)
# observed on jax 0.10.2 CPU: runs clean, also with jax_debug_key_reuse enabled (added at
#   the top): every key is split or drawn from once; the two `random.key(42)` keys are new
#   key objects made from the same seed, which the document uses on purpose to compare the
#   loop with one draw of shape (3,). The document's earlier cell that draws twice from one
#   key is left out (see jaxdocs_random_numbers_normal_same_key_twice.py), and so is the
#   last cell, `jax.vmap(random.normal)(subkeys)`, which draws again from the subkeys the
#   loop already consumed to show the same values (the checker raises KeyReuseError there).
#   The __main__ block is added and checks the draws.
# gap: other
import jax
jax.config.update("jax_debug_key_reuse", True)

import numpy as np
from jax import random

key = random.key(42)

for i in range(3):
  new_key, subkey = random.split(key)
  del key  # The old key is consumed by split() -- we must never use it again.

  val = random.normal(subkey)
  del subkey  # The subkey is consumed by normal().

  print(f"draw {i}: {val}")
  key = new_key  # new_key is safe to use in the next iteration.

key, subkey = random.split(key)

key, *forty_two_subkeys = random.split(key, num=43)

key = random.key(42)
subkeys = random.split(key, 3)
sequence = np.stack([random.normal(subkey) for subkey in subkeys])
print("individually:", sequence)

key = random.key(42)
print("all at once: ", random.normal(key, shape=(3,)))


if __name__ == "__main__":
    assert sequence.shape == (3,) and len(set(sequence.tolist())) == 3
    assert len(forty_two_subkeys) == 42
