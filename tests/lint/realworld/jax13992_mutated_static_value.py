# source: https://github.com/jax-ml/jax/issues/13992 (the minimal example in the description)
# observed on jax 0.10.2 CPU: after `v.val = 0` both later calls of add(v, 1) print 101,
#   not 1: v is a static argument whose attribute is read at trace time, and mutating it
#   after the first call leaves jit's cache returning the trace made with val=100.
#   Added: the __main__ block.
# gap: stale-state-attributes
from functools import partial
from jax import jit

class StaticValue:
  def __init__(self, val):
    self.val = val

  def __hash__(self):
    return hash(self.val)

  def __eq__(self, other):
    return isinstance(other, StaticValue) and self.val == other.val

@partial(jit, static_argnums=0)
def add(v, y):
  return y + v.val  # expect: JIT201

v = StaticValue(100)
print(add(v, 1))
# 101

v.val = 0
print(add(v, 1))  # cache miss, as expected because hash changed.
# 1
print(add(v, 1))  # cache hit, but returns wrong cached function.
# 101

if __name__ == "__main__":
    # observed: line 22 is read at trace time only: the mutated v still gives 101, a
    # fresh StaticValue(0) gives 1
    assert int(add(v, 1)) == 101
    assert int(add.__wrapped__(StaticValue(0), 1)) == 1
