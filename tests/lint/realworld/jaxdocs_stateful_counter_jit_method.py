# source: https://github.com/jax-ml/jax/blob/055a88344ffe252fd8d57d5470c3201493aeb5b8/docs/stateful-computations.md
# observed on jax 0.10.2 CPU: `fast_count = jax.jit(counter.count)` returns 1 on each of
#   three calls where the plain method returns 1, 2, 3: `self.n += 1` runs once, while
#   tracing, and the traced function returns the constant it read then. After the three
#   calls counter.n is 1, not 3. The docs page shows this as "Oh no! Our counter isn't
#   working." The two code cells are kept in order under `if __name__ == "__main__":`,
#   with the printed values collected to check them.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp

class Counter:
  """A simple counter."""

  def __init__(self):
    self.n = 0

  def count(self) -> int:
    """Increments the counter and returns the new value."""
    self.n += 1  # expect: JIT202
    return self.n  # tolerate: JIT201

  def reset(self):
    """Resets the counter to zero."""
    self.n = 0


if __name__ == "__main__":
  counter = Counter()

  plain = []
  for _ in range(3):
    plain.append(counter.count())
  assert plain == [1, 2, 3]

  counter.reset()
  fast_count = jax.jit(counter.count)

  fast = []
  for _ in range(3):
    fast.append(int(fast_count()))
  # observed: line 20 runs only while tracing, so the jitted count returns 1 every time
  assert fast == [1, 1, 1], fast
  assert counter.n == 1
