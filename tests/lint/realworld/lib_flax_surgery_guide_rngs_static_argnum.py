# source: https://github.com/google/flax/blob/7eeaa7ba4212c514f8cc25bea3e416b3580f6d3f/docs/nnx/surgery.md
# observed on jax 0.10.2 CPU: with flax 0.12.8, the guide's "memory-efficient partial
#   initialization" raises ValueError (Non-hashable static arguments are not supported ...
#   TypeError: unhashable type: 'list') at the call `partial_init(old_state, nnx.Rngs(42))`:
#   `static_argnums=1` makes the `nnx.Rngs` a static argument, and its key and count arrays
#   cannot be hashed. The guide later dropped `static_argnums=1` (742c926, the `_ok` file).
#   Kept: the guide's `TwoLayerMLP` and its partial-initialization cell; the guide's import
#   cell is reduced to the imports these cells use.
# gap: static-hashability
import functools

import jax
from flax import nnx


class TwoLayerMLP(nnx.Module):
  def __init__(self, dim, rngs: nnx.Rngs):
    self.linear1 = nnx.Linear(dim, dim, rngs=rngs)
    self.linear2 = nnx.Linear(dim, dim, rngs=rngs)

  def __call__(self, x):
    x = self.linear1(x)
    return self.linear2(x)


# Some pretrained model state
old_state = nnx.state(TwoLayerMLP(4, rngs=nnx.Rngs(0)))

# Use nnx.jit (which wraps jax.jit) to automatically skip unused arrays - memory efficient!
@functools.partial(nnx.jit, donate_argnums=0, static_argnums=1)
def partial_init(old_state, rngs):
  model = TwoLayerMLP(4, rngs=rngs)
  # create new state
  model.linear1 = nnx.LoRALinear(4, 4, lora_rank=3, rngs=rngs)
  # add existing create
  nnx.update(model, old_state)
  return model

print(f'Number of jax arrays in memory at start: {len(jax.live_arrays())}')
# Note that `old_state` will be deleted after this `partial_init` call.
good_model = partial_init(old_state, nnx.Rngs(42))  # expect: JIT302
print(f'Number of jax arrays in memory at end: {len(jax.live_arrays())}'
      ' (2 new created - lora_a and lora_b)')
