# source: https://github.com/google/flax/blob/742c9262f7c08b67d6dabe42febd07848ad686ed/docs_nnx/guides/surgery.md
# observed on jax 0.10.2 CPU: with flax 0.12.8, the guide's memory-efficient partial
#   initialization runs clean: `rngs` is an ordinary (traced) argument of `nnx.jit`, the donated
#   `old_state` is not read after the call, and the returned model has the LoRA layer with the
#   pretrained second layer. Kept: the guide's `TwoLayerMLP` and its partial-initialization
#   cell; the guide's import cell is reduced to the imports these cells use. Added: a
#   `__main__` block that runs the returned model under `nnx.jit`.
# gap: static-hashability
import jax
import jax.numpy as jnp
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

# Use `nnx.jit` (which wraps `jax.jit`) to automatically skip unused arrays - memory efficient!
@nnx.jit(donate_argnums=0)
def partial_init(old_state, rngs):
  model = TwoLayerMLP(4, rngs=rngs)
  # Create a new state.
  model.linear1 = nnx.LoRALinear(4, 4, lora_rank=3, rngs=rngs)
  # Add the existing state.
  nnx.update(model, old_state)
  return model

print(f'Number of jax arrays in memory at start: {len(jax.live_arrays())}')
# Note that `old_state` will be deleted after this `partial_init` call.
good_model = partial_init(old_state, nnx.Rngs(42))
print(f'Number of jax arrays in memory at end: {len(jax.live_arrays())}'
      ' (2 new created - lora_a and lora_b)')


if __name__ == "__main__":
    @nnx.jit
    def forward(model, x):
        return model(x)

    y = forward(good_model, jnp.ones((3, 4)))
    assert y.shape == (3, 4)
    assert isinstance(good_model.linear1, nnx.LoRALinear)
