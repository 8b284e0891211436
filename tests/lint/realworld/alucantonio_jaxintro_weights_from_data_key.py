# source: https://github.com/alucantonio/data_enhanced_simulation/blob/8f3b21b12d779ca80264838e4f3511620ddde8b7/1_JAXintro_solutions.ipynb
#   (cells 4 and 6 of a course notebook: the solution of the linear-regression exercise)
# observed on jax 0.10.2 CPU: the initial weights are drawn from `key`, the key the input
#   features x were drawn from, so weights == x[0] (the same two numbers): the "random"
#   initialisation is the first data row. jax_debug_key_reuse with typed keys reports the
#   second draw. Added: `initial_weights` and the __main__ block; the training loop runs 1000 epochs as posted.
# gap: other
import jax
import jax.numpy as jnp
from jax import grad, jit

# Generate synthetic data
key = jax.random.PRNGKey(0)
true_w = jnp.array([2.0, -3.0])  # True weights for the synthetic data
true_b = 5.0  # True bias for the synthetic data
num_samples = 100
x = jax.random.normal(key, (num_samples, 2))  # Input features
y = jnp.dot(x, true_w) + true_b  # Targets

# Define the model
def model(weights, bias, x):
    return jnp.dot(x, weights) + bias

# Mean squared error loss function
def mse_loss(weights, bias, x, y):
    predictions = model(weights, bias, x)
    return jnp.mean((predictions - y) ** 2)

# Gradient of the loss function
grad_mse_loss = grad(mse_loss, argnums=(0, 1))

# Training step
@jit
def train_step(weights, bias, x, y, learning_rate):
    gradients = grad_mse_loss(weights, bias, x, y)
    new_weights = weights - learning_rate * gradients[0]
    new_bias = bias - learning_rate * gradients[1]
    return new_weights, new_bias

# Initialize parameters
weights = jax.random.normal(key, (2,))  # expect: JIT502
bias = 0.0
learning_rate = 0.01
num_epochs = 1000

initial_weights = weights

# Training loop
for epoch in range(num_epochs):
    weights, bias = train_step(weights, bias, x, y, learning_rate)
    if epoch % 100 == 0:
        current_loss = mse_loss(weights, bias, x, y)
        print(f"Epoch {epoch}, Loss: {current_loss}")

# Print the final parameters
print("Learned weights:", weights)
print("Learned bias:", bias)

if __name__ == "__main__":
    # observed: line 41 draws the initial weights from the data key: they are x's first row
    assert jnp.array_equal(initial_weights, x[0])
