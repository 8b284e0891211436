# source: https://github.com/arampatzis-teaching/damsl-281-2025/blob/c71f3c269bc7c99ef75b7aeeb85f9e78db63e0aa/lecture-notes/code/notebooks/04-flax/06-flax-train.ipynb
#   (lecture notebook of a university course comparing PyTorch and Flax training: cells 1,
#   3, 7, 11 and 15, the Flax half; the PyTorch model, optimizer and loop and the torch
#   imports are left out)
# observed on jax 0.10.2 CPU: runs clean. flax_train_step is jitted once at module level
#   and takes the TrainState as an argument, and the loop rebinds `state` to the returned
#   state each step (the notebook's comment stresses it), so the 20 steps learn: the loss
#   falls and one trace serves them all (the first call, with TrainState.create's Python
#   int step, adds a second entry to jit's dispatch cache but no second trace). The data
#   come from NumPy's global generator outside jit. Added: the __main__ block.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp
import flax.linen as nn
from flax.training import train_state
import optax
import numpy as np

# Data: y = 2x + 1
x_numpy = np.random.randn(100, 1).astype(np.float32)
y_numpy = 2 * x_numpy + 1 + np.random.randn(100, 1) * 0.1

# Prepare for JAX
x_jax = jnp.array(x_numpy)
y_jax = jnp.array(y_numpy)

# --- FLAX (Stateless Blueprint) ---
class FlaxMLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        # No weights here. Just a description.
        return nn.Dense(1)(x)

# 1. Instantiate Blueprint
flax_model = FlaxMLP()

# 2. Initialize Parameters (Abstract Evaluation)
key = jax.random.PRNGKey(0)
dummy_input = jnp.ones((1, 1))
params = flax_model.init(key, dummy_input)['params']

# 3. Define Optimizer (Pure Config)
tx = optax.adam(learning_rate=0.1)

# 4. Bundle into TrainState
# This object holds the CURRENT snapshot of training
state = train_state.TrainState.create(
    apply_fn=flax_model.apply,
    params=params,
    tx=tx,
)

print("Flax: TrainState ready.")

# We JIT compile this function for speed
@jax.jit
def flax_train_step(state, x, y):
    # 1. Define Loss Function (Must be a function of params)
    def loss_fn(params):
        # Apply the model using the passed parameters
        pred = state.apply_fn({'params': params}, x)
        loss = jnp.mean((pred - y) ** 2)
        return loss

    # 2. Calculate Gradients (Explicit)
    # value_and_grad returns (loss_value, gradients)
    loss, grads = jax.value_and_grad(loss_fn)(state.params)

    # 3. Update State
    # 'apply_gradients' uses the optimizer logic (Adam) to create
    # a NEW set of parameters and returns a NEW TrainState.
    new_state = state.apply_gradients(grads=grads)

    return new_state, loss

print("\n--- Flax Training ---")
for i in range(20):
    # CRITICAL: We must assign the NEW state back to the variable 'state'
    # If we didn't, the model would never learn (we'd keep using the old state).
    state, loss = flax_train_step(state, x_jax, y_jax)
    if i % 2 == 0:
        print(f"Step {i}, Loss: {loss:.4f}")

# Access final weights
print(f"Final Weights: {state.params['Dense_0']['kernel']}")


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    _, next_loss = flax_train_step(state, x_jax, y_jax)
    assert compiles == [], compiles
    initial_loss = jnp.mean((flax_model.apply({'params': params}, x_jax) - y_jax) ** 2)
    assert float(next_loss) < float(initial_loss)
    assert int(state.step) == 20
