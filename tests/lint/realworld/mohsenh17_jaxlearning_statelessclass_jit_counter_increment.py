# source: https://github.com/mohsenh17/jaxLearning/blob/6f5294ef8d5a4c43002cb6a0e34b13b267399c05/jax/statelessClass.ipynb
#   (a learner's notebook on state under jit, written after the JAX docs' stateful-computations
#   page: a Counter class whose increment method is jitted as a bound method, then the
#   stateless rewrite that threads the count through)
# observed on jax 0.10.2 CPU: jit(counter.increment) runs `self.count += 1` once, at the
#   trace: the three calls all return 1 and counter.count stays 1 after them; the
#   StatelessCounter version returns 1, 2, 3 under jit.
# gap: stale-state-attributes
# added: the notebook's cells concatenated in order (the unused matplotlib import dropped),
#   the printed values collected into lists, the StatelessCounter instance named `stateless`
#   (the notebook rebinds `counter`) so the Counter can be checked, and the __main__ block.
import jax
import jax.numpy as jnp
import numpy as np

from jax import grad, jit, vmap, pmap

from jax import random

import functools

class Counter:
  def __init__(self):
    self.count = 0

  def increment(self):
    self.count += 1  # expect: JIT202
    return self.count

  def reset(self):
    self.count = 0
    return self.count
counter = Counter()

eager_values = []
for _ in range(3):
    eager_values.append(counter.increment())

counter.reset()
fast_counter = jit(counter.increment)
jit_values = []
for _ in range(3):
    jit_values.append(fast_counter())

counterState = int
class StatelessCounter:
  def increment(self, state: counterState) -> tuple[counterState, int]:
    return state + 1, state + 1
  def reset(self) -> counterState:
    return 0

stateless = StatelessCounter()
state = stateless.reset()
for _ in range(3):
    value, state = stateless.increment(state)

fast_stateless = jit(stateless.increment)
state = stateless.reset()
stateless_values = []
for _ in range(3):
    value, state = fast_stateless(state)
    stateless_values.append(int(value))


if __name__ == "__main__":
    assert eager_values == [1, 2, 3]
    # observed: line 27 runs once, when fast_counter is traced: every call returns 1
    assert [int(v) for v in jit_values] == [1, 1, 1]
    assert counter.count == 1
    # the stateless rewrite counts under jit
    assert stateless_values == [1, 2, 3]
