# source: https://github.com/google/flax/issues/5461
# observed on jax 0.10.2 CPU: with flax 0.12.8, calling `update` on the module's state raises
#   JaxRuntimeError "INVALID_ARGUMENT: Attempt to donate the same buffer twice in Execute()":
#   `nnx.clone` gives `linear_copy` new Variable wrappers around the same `jax.Array` buffers
#   as `linear` (both asserts hold), so the donated state pytree holds each buffer twice.
#   The report's snippet is cut after `def update(state_pytree):`; added: its body and the
#   call, taken from the regression test the fix added for this repro
#   (tests/nnx/module_test.py, `test_clone_arrays_donate_argnums`:
#   `jax.tree.map(lambda x: x + 0.01, state)` and `update_donate(nnx.state(m))`).
# gap: other
import functools

import jax
from flax import nnx

class TestModule(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.linear = nnx.Linear(in_features=4, out_features=2, rngs=rngs)
        self.linear_copy = nnx.clone(self.linear)

rngs = nnx.Rngs(0)
test_module = TestModule(rngs)

linear_state = nnx.state(test_module.linear)
linear_copy_state = nnx.state(test_module.linear_copy)

online_kernel_array = linear_state.kernel.value
target_kernel_array = linear_copy_state.kernel.value

assert id(linear_state.kernel.value) == id(linear_copy_state.kernel.value)
assert online_kernel_array.unsafe_buffer_pointer() == target_kernel_array.unsafe_buffer_pointer()

# Test donate_argnums with nnx.clone'd layers.
@functools.partial(jax.jit, donate_argnums=(0,))
def update(state_pytree):
    return jax.tree.map(lambda x: x + 0.01, state_pytree)

state = update(nnx.state(test_module))  # expect: JIT504
