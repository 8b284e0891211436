# source: https://github.com/enerrio/jax-101/blob/81dea8bf6b31e5eedb599e7ccf5abc25e9466767/nn.ipynb
#   (notebook accompanying the "Training a Neural Network with Jax" blog post: the
#   dataset, parameter initialisation, model, loss, update and jitted training-loop cells).
#   Added: the first cell's imports trimmed to those used (matplotlib, copy and the
#   plotting cells dropped); the training cell is moved into the __main__ block as written.
# observed on jax 0.10.2 CPU: generate_polynomial_data splits the key and hands back the
#   unused half, which init_params splits again for the two weight matrices, so no key is
#   consumed twice; jit(train_loop) takes lr as a traced argument and compiles once for
#   the 1000 epochs; the loss falls from 1.61 to about 0.035.
# gap: exemption-vs-JAX
import time

import jax
from jax import random
from jax import jit
import jax.numpy as jnp


def generate_polynomial_data(key, coefficients=[1, -2, 3], n_samples=100):
    key, subkey = random.split(key, 2)
    X = jnp.linspace(-10, 10, n_samples)
    y = jnp.polyval(coefficients, X) + random.normal(subkey, shape=(n_samples,))
    return X.reshape(-1, 1), y.reshape(-1, 1), key

key = random.key(21)
X, y, key = generate_polynomial_data(key, coefficients=jnp.array([1, -2, 1, -2]), n_samples=1_000)
X_norm = (X - X.mean()) / X.std()
y_norm = (y - y.mean()) / y.std()

print(f"X shape: {X.shape} - X dtype: {X.dtype}")
print(f"y shape: {y.shape} - y dtype: {y.dtype}")


# Create model parameters
def init_params(key):
    """Initialize model weights w/ Kaiming init."""
    W1_key, W2_key = random.split(key, 2)
    W1 = random.normal(W1_key, (1, 128), dtype=jnp.float32) * (5/3) / jnp.sqrt(1.)
    b1 = jnp.zeros(128, dtype=jnp.float32)
    W2 = random.normal(W2_key, (128, 1), dtype=jnp.float32) * (5/3) / jnp.sqrt(128.)
    b2 = jnp.zeros(1, dtype=jnp.float32)
    params = {"W1": W1, "b1": b1, "W2": W2, "b2": b2}
    return params


def forward(params, x):
    """Forward pass of function."""
    x = jax.nn.tanh(jnp.dot(x, params["W1"]) + params["b1"])
    return jnp.dot(x, params["W2"]) + params["b2"]

def mse(params, x, y):
    """Mean squared error loss function."""
    y_pred = forward(params, x)
    return jnp.mean((y - y_pred) ** 2)

def update_params(params, gradients, lr=0.01):
    """Update model parameters."""
    new_params = jax.tree.map(lambda p, g: p - lr * g, params, gradients)
    return new_params


def train_loop(params, x, y, lr=0.01):
    loss, gradients = jax.value_and_grad(mse, argnums=0)(params, x, y)
    params = update_params(params, gradients, lr=lr)
    return params, loss


if __name__ == "__main__":
    # Initialize model weights
    params = init_params(key)

    # Train model using full batch gradient descent
    num_epochs = 1000
    log_rate = 100
    lr = 0.01
    losses = []
    train_loop_jit = jit(train_loop)

    start_time = time.time()
    for i in range(num_epochs):
        # params, loss = train_loop(params, X_norm, y_norm, lr)
        params, loss = train_loop_jit(params, X_norm, y_norm, lr) # train w/ jitted loop
        if (i % log_rate) == 0:
            print(f"Epoch [{i}/{num_epochs}] | Train Loss: {loss:.3f}")
        losses.append(loss)

    end_time = time.time()
    # Total train time: 11.15 seconds w/o JIT
    # Jit: Total train time: 1.12 seconds w/ JIT
    print(f"Total train time: {end_time-start_time:.2f} seconds")

    assert train_loop_jit._cache_size() == 1
    assert float(losses[-1]) < float(losses[0])
