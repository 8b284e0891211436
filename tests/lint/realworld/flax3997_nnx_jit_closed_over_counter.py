# source: https://github.com/google/flax/issues/3997
# observed on jax 0.10.2 CPU: with flax 0.12.8, `nnx.jit(counter)()` raises TraceContextError
#   (Cannot mutate Count from a different trace level) at the `+=` in __call__: the module
#   is not an argument of the jitted call, so its Variable lives outside the trace and the
#   traced code writes to it. Imports are added.
# gap: stale-state-attributes
from flax import nnx
import jax.numpy as jnp

class Count(nnx.Variable): pass

class Counter(nnx.Module):
  def __init__(self):
    self.count = Count(jnp.array(0))

  def __call__(self):
    self.count.value += 1  # expect: JIT202

counter = Counter()

counter()                   # works fine
nnx.jit(counter)()       # fails
