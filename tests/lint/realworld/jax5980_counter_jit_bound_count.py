# source: https://github.com/jax-ml/jax/pull/5980 (the Counter example of the JAX-101
#   notebook "Stateful Computations in JAX", docs/jax-101/07-state.md)
# observed on jax 0.10.2 CPU: fast_count() returns 1 on every call: `self.n += 1` runs
#   once, while jit traces the bound method, and the compiled program returns the
#   constant 1 (the notebook: "Oh no! Our counter isn't working."). Added: the __main__
#   block.
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


counter = Counter()

for _ in range(3):
  print(counter.count())

counter.reset()
fast_count = jax.jit(counter.count)

for _ in range(3):
  print(fast_count())


if __name__ == "__main__":
  values = [int(fast_count()) for _ in range(3)]  # tolerate: JIT202
  # observed: line 19 ran once, at trace time: every call returns 1 and n stays 1
  assert values == [1, 1, 1], values
  assert counter.n == 1, counter.n
