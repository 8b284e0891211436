# source: https://github.com/arampatzis-teaching/damsl-281-2025/blob/c71f3c269bc7c99ef75b7aeeb85f9e78db63e0aa/lecture-notes/code/notebooks/04-flax/07-vmap.ipynb
#   (lecture notebook of a university course: cells 1, 3 and 5, the Flax half; the PyTorch
#   half and its imports are left out)
# observed on jax 0.10.2 CPU: runs clean. Five Flax models are initialised under
#   jax.vmap(create_state) from five split keys, and ensemble_step =
#   jax.jit(jax.vmap(train_step, in_axes=(0, None, None))) is built once, before the loop, so
#   the 100 steps reuse one compilation; the losses of all five models fall. Added: the
#   __main__ block.
# gap: per-call-recompile
import numpy as np
import jax
import jax.numpy as jnp
from flax import linen as nn
from flax.training import train_state
import optax

# Data (Same for both)
x_in = np.linspace(-1, 1, 100)[:, None].astype(np.float32)
y_true = 2 * x_in + 1 + np.random.randn(100, 1).astype(np.float32) * 0.1
x_jax, y_jax = jnp.array(x_in), jnp.array(y_true)

# 1. Model
class FlaxMLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(1)(x)

# 2. State Creator (Single Model)
def create_state(rng):
    model = FlaxMLP()
    params = model.init(rng, jnp.ones((1, 1)))['params']
    tx = optax.adam(0.01)
    return train_state.TrainState.create(apply_fn=model.apply, params=params, tx=tx)

# 3. Vectorized Creation (5 Models)
keys = jax.random.split(jax.random.PRNGKey(0), 5)
ensemble_state = jax.vmap(create_state)(keys)

print(f"Flax Params Shape: {ensemble_state.params['Dense_0']['kernel'].shape}")
# Output: (5, 1, 1) -> (Ensemble, Input, Output)

# 1. Single Step Logic
def train_step(state, x, y):
    def loss_fn(params):
        pred = state.apply_fn({'params': params}, x)
        return jnp.mean((pred - y) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(state.params)
    return state.apply_gradients(grads=grads), loss

# 2. Vectorize it
# Map over state (axis 0), broadcast data (None)
# `in_axes` specifies how the inputs are mapped across the leading axis during `vmap`.
# Here, `state` has shape (ensemble, ...), so we set in_axes=0 for it to map across models,
# while `x` and `y` are broadcasted (same batch for all models), so we use None for those.
ensemble_step = jax.jit(jax.vmap(train_step, in_axes=(0, None, None)))

# 3. Run
for i in range(100):
    ensemble_state, losses = ensemble_step(ensemble_state, x_jax, y_jax)

print(f"Loss: ", losses)


if __name__ == "__main__":
    next_state, next_losses = ensemble_step(ensemble_state, x_jax, y_jax)
    assert losses.shape == (5,) and bool((next_losses <= losses).all())
    assert ensemble_step._cache_size() == 1
    kernels = np.asarray(ensemble_state.params['Dense_0']['kernel']).ravel()
    assert kernels.shape == (5,) and len(set(kernels.tolist())) == 5
