# source: https://github.com/jax-ml/jax/issues/968 (mattjj's answer of 2019-07-03)
# observed on jax 0.10.2 CPU: runs clean: split_and_sample is jitted once and called 10000
#   times with the key it returned last, so every draw uses a fresh subkey. Added: the
#   imports, the call of sample_repeatedly_with_split, and the __main__ block, which checks
#   that two steps give different draws.
# gap: other
from jax import random
from jax import jit

@jit
def split_and_sample(key):
  key, subkey = random.split(key)
  val = random.normal(subkey, shape=(3,))
  return key, val

def sample_repeatedly_with_split(key):
  for _ in range(10000):
    key, _ = split_and_sample(key)

sample_repeatedly_with_split(random.PRNGKey(0))


if __name__ == "__main__":
    key = random.PRNGKey(1)
    key, v1 = split_and_sample(key)
    key, v2 = split_and_sample(key)
    assert not (v1 == v2).all()
