# source: https://github.com/huyqd/ProbML_Apps/blob/c7e71cfbdeb43177d3483a7047a6e40815fcc81c/12.gaussian-process-role-of-linear-algebra.ipynb
#   (a user's lecture-notes notebook, "the role of linear algebra" in GPs, written as blog posts;
#   cell 10, a "conceptual deep learning training loop" with optax and mini-batches)
# observed on jax 0.10.2 CPU: one PRNGKey(0) makes X_data, then y_data and the weights W
#   from the same key: the targets are the inputs (y_data equals the first 100000 entries of
#   X_data flattened) and W equals the first row of X_data. In the loop, randint(key, ...)
#   is never given a new key, so every step (1000 in the notebook) trains on the same 64 rows.
#   Changed: num_training_steps 1000 -> 200, for speed (the notebook's other lines kept).
#   Added: the __main__ block, which checks these equalities.
# gap: other
import jax.numpy as jnp
import jax.random as random
import optax  # A JAX-based optimization library
from jax import grad

# --- Conceptual Deep Learning Training Loop ---

# 1. Simulate a very simple dataset
num_total_samples = 100000  # N: Large dataset
input_dim = 10
output_dim = 1
key = random.PRNGKey(0)

# Dummy data (inputs and targets)
X_data = random.normal(key, (num_total_samples, input_dim))
y_data = random.normal(key, (num_total_samples, output_dim))  # expect: JIT502


# 2. Define a very simple "deep learning" model (e.g., a linear model for simplicity)
# In reality, this would be a multi-layer neural network
def simple_model(params, x):
    """A simple linear model: y = x @ W + b"""
    return jnp.dot(x, params["W"]) + params["b"]


# 3. Define a simple loss function (Mean Squared Error)
def mse_loss(params, x_batch, y_batch):
    predictions = simple_model(params, x_batch)
    return jnp.mean((predictions - y_batch) ** 2)


# 4. Initialize model parameters
model_params = {
    "W": random.normal(key, (input_dim, output_dim)),  # expect: JIT502
    "b": jnp.zeros(output_dim),
}

# 5. Setup optimizer
learning_rate = 0.01
optimizer = optax.adam(learning_rate)
opt_state = optimizer.init(model_params)

# Get the gradient function
loss_grad_fn = grad(mse_loss)

# --- Training Loop (Illustrating O(B) cost per iteration) ---
num_training_steps = 200  # 1000 in the notebook
batch_size = 64  # B: Mini-batch size (fixed, much smaller than N)

print(f"Simulating Deep Learning Training (N={num_total_samples}, B={batch_size})")
print("Cost per iteration is O(B), independent of N.")

for step in range(num_training_steps):
    # Randomly select a mini-batch
    batch_indices = random.randint(key, (batch_size,), 0, num_total_samples)  # expect: JIT502
    x_batch = X_data[batch_indices]
    y_batch = y_data[batch_indices]

    # Compute loss and gradients for the mini-batch
    # This operation's cost depends on B, not N
    grads = loss_grad_fn(model_params, x_batch, y_batch)

    # Update model parameters
    updates, opt_state = optimizer.update(grads, opt_state, model_params)
    model_params = optax.apply_updates(model_params, updates)

    if step % 200 == 0:
        current_loss = mse_loss(model_params, x_batch, y_batch)
        print(f"Step {step}, Batch Loss: {current_loss:.4f}")

print("\nDeep Learning training simulation complete.")
print(
    "The key takeaway is that each step's computation depends on batch_size, not total_samples."
)


if __name__ == "__main__":
    # observed: line 26 draws y_data from the key X_data came from: the targets are inputs
    assert bool((y_data.ravel() == X_data.ravel()[:num_total_samples]).all())
    # observed: line 44 draws the weights from that key again: W (drawn again here, as
    # training has changed model_params) is the first row of X_data
    first_W = random.normal(key, (input_dim, output_dim))  # tolerate: JIT502
    assert bool((first_W.ravel() == X_data[0]).all())
    # observed: line 65 draws the same batch at every step: step 0's indices (drawn again
    # here) are the last step's
    first_batch = random.randint(key, (batch_size,), 0, num_total_samples)  # tolerate: JIT502
    assert bool((first_batch == batch_indices).all())
