# source: https://github.com/google/flax/pull/5475 (the fix of flax#5461: `nnx.clone(...,
#   arrays=True)` copies the underlying buffers; the module and `update` as in the PR's
#   regression test `test_clone_arrays_donate_argnums`, tests/nnx/module_test.py)
# observed on jax 0.10.2 CPU: with flax 0.12.8 the clone holds its own buffers and the
#   donated state runs clean; the returned state is fed back into the module and a second
#   call with the rebound state runs too.
# gap: other
import jax
from flax import nnx


class TestModule(nnx.Module):
  def __init__(self, rngs):
    self.linear = nnx.Linear(in_features=4, out_features=2, rngs=rngs)
    self.linear_copy = nnx.clone(self.linear, arrays=True)

m = TestModule(nnx.Rngs(0))

def update(state):
  return jax.tree.map(lambda x: x + 0.01, state)

update_donate = jax.jit(update, donate_argnums=(0,))
state = update_donate(nnx.state(m))
assert state is not None


if __name__ == "__main__":
  nnx.update(m, state)
  state = update_donate(nnx.state(m))
  nnx.update(m, state)
  assert m.linear.kernel[...].shape == (4, 2)
