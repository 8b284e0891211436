# source: https://github.com/pyro-ppl/numpyro/issues/441 (fehiepsi's snippet in the thread:
#   `jit(f.sample)()` after `f.a = 2` returned 1 instead of 2 on the JAX of 2019)
# observed on jax 0.10.2 CPU: runs correctly: the second `jit(f.sample)()` returns 2. The
#   second `jit(f.sample)` wraps a new bound method and traces it again, reading the current
#   `self.a`. Added: the __main__ block that checks the two results.
# gap: stale-state-attributes
from jax import jit

class F:
    a = 1

    def sample(self):
        return self.a

f = F()
first = jit(f.sample)()

f.a = 2
second = jit(f.sample)()

if __name__ == "__main__":
    assert int(first) == 1
    assert int(second) == 2
