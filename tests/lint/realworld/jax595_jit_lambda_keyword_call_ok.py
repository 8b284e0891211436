# source: https://github.com/jax-ml/jax/pull/595 (the "extended version" in the description:
#   keyword and positional calls of one jitted lambda)
# observed on jax 0.10.2 CPU: runs clean and every call returns the sum; calling by keyword
#   is a different call signature and may compile once more, which the maintainers accept
#   ("We don't guarantee cache hits in general"). Added: the import and the __main__ check.
# gap: per-call-recompile
from jax import jit

f = jit(lambda x, y: x + y)
f(1, 2)
f(2, 3)  # cache hit
f(1, y=2)  # cache miss, re-compiles
f(3, y=4)  # cache hit
f(5, 6)  # cache hit
f(x=2, y=3)  # cache miss, re-compiles
f(y=4, x=8)  # cache hit

if __name__ == "__main__":
    assert [int(f(1, 2)), int(f(1, y=2)), int(f(y=4, x=8))] == [3, 3, 12]
