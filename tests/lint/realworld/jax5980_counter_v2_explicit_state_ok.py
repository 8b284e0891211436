# source: https://github.com/jax-ml/jax/pull/5980 (CounterV2, the fix in the JAX-101
#   notebook "Stateful Computations in JAX", docs/jax-101/07-state.md)
# observed on jax 0.10.2 CPU: with the state passed in and returned, the jitted count
#   gives 1, 2, 3. Added: the __main__ block.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp

from typing import Tuple

CounterState = int

class CounterV2:

  def count(self, n: CounterState) -> Tuple[int, CounterState]:
    # You could just return n+1, but here we separate its role as 
    # the output and as the counter state for didactic purposes.
    return n+1, n+1

  def reset(self) -> CounterState:
    return 0

counter = CounterV2()
state = counter.reset()

for _ in range(3):
  value, state = counter.count(state)
  print(value)

state = counter.reset()
fast_count = jax.jit(counter.count)

for _ in range(3):
  value, state = fast_count(state)
  print(value)


if __name__ == "__main__":
  state = counter.reset()
  values = []
  for _ in range(3):
    value, state = fast_count(state)
    values.append(int(value))
  assert values == [1, 2, 3], values
