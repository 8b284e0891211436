# source: https://github.com/google/flax/issues/4151
# observed on jax 0.10.2 CPU: with flax 0.12.8, `jax.lax.scan(scan, ...)` raises
#   TraceContextError (Cannot mutate RngCount from a different trace level) at the dropout
#   call in `MLP.__call__`: the scan body closes over `model`, whose Rngs live outside the
#   scan's trace, and nnx.Dropout advances their count from inside it (the eager call before
#   it works). Imports of jax and jax.numpy are added.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp
from flax import nnx
from functools import partial


class MLP(nnx.Module):

	def __init__(self, *, rngs: nnx.Rngs):
		self.linear1 = nnx.Linear(10, 256, rngs=rngs)
		self.linear2 = nnx.Linear(256, 10, rngs=rngs)
		self.dropout = nnx.Dropout(rate=0.5, rngs=rngs)

	def __call__(self, x):
		x = nnx.relu(self.dropout(self.linear1(x)))  # expect: JIT202
		x = self.linear2(x)
		return x

model = MLP(rngs=nnx.Rngs(0))

model(jnp.ones((1, 10)))  # works fine

def scan(carry, x):
    model(x)  # tolerate: JIT202
    return carry, None

jax.lax.scan(scan, None, jnp.ones((10, 10)))
