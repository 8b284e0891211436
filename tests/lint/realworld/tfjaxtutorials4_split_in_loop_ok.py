# source: https://github.com/AakashKumarNain/TF_JAX_tutorials/issues/4 (the fix proposed in
#   the report: seed once, split in every iteration)
# observed on jax 0.10.2 CPU: runs clean and draws three different numbers; under
#   jax.debug_key_reuse with a typed key it raises nothing.
# gap: other
import jax
from jax import random

key = random.PRNGKey(42)

for _ in range(3):
    key, subkey = random.split(key)
    a = random.normal(key=subkey)
    print(a)

if __name__ == "__main__":
    with jax.debug_key_reuse(True):
        key = random.key(42)
        draws = []
        for _ in range(3):
            key, subkey = random.split(key)
            draws.append(float(random.normal(key=subkey)))
    assert len(set(draws)) == 3
