# source: https://github.com/jax-ml/jax/pull/4312 (repro of reports from Flax and Haiku users)
# observed on jax 0.10.2 CPU: after jit, init() returns the same number on every call
#   (the global key is only split while tracing) and the global `key` is left holding a
#   leaked tracer.
# gap: stale-state-attributes
from jax import jit
from jax import random

key = random.PRNGKey(0)

def init():
  global key
  key, subkey = random.split(key)  # expect: JIT202
  return random.normal(subkey, ())

print(init())  # -1.2515389
print(init())  # -0.58665067

init = jit(init)

if __name__ == "__main__":
    import jax

    first, second = init(), init()
    # observed: line 13 runs once, at trace time: repeated randomness and a leaked key
    assert float(first) == float(second)
    assert isinstance(key, jax.core.Tracer)
