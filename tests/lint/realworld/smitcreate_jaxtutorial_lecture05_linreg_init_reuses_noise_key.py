# source: https://github.com/Smit-create/jax_tutorial/blob/7763d8421207140e5994a2a611a5eb1b1ccb0df5/notebooks/lecture_05.ipynb
# observed on jax 0.10.2 CPU: the initial weight params['W'] is drawn from the key the data
#   noise was drawn from, so it equals noise[0] (both are normal(key) draws of the same
#   stream): the "random" initialisation is the first noise value. Kept: code cells 1-12
#   of the linear-regression part of the notebook as written (the matplotlib cell 4 is
#   left out); W_init (the weight as initialised) and the __main__ check are added.
# gap: other
import jax
import jax.numpy as jnp

actual_W = 3.0
actual_b = 2.0
num_points = 10

key = jax.random.PRNGKey(0)
X = jnp.arange(num_points).reshape((num_points, 1))
y_actual = actual_W * X + actual_b
noise = jax.random.normal(key, (num_points, 1))
y = y_actual + noise

# Forward pass
@jax.jit
def forward(params, x):
    return jnp.dot(x, params['W']) + params['b']

# Define loss function of linear regression
@jax.jit
def loss_fn(params, x, y):
    preds = forward(params, x)
    return jnp.mean((preds - y) ** 2)

# Define gradient function
grad_fn = jax.jit(jax.grad(loss_fn))

# Define model parameters (Initialize them)
params = {
    'W': jax.random.normal(key, (1, 1)),  # expect: JIT502
    'b': jnp.zeros((1,))
}
W_init = params['W']

lr = 0.01
num_epochs = 1000
for epoch in range(num_epochs):
    # Compute gradients
    grads = grad_fn(params, X, y_actual)
    # Update parameters
    params['W'] -= lr * grads['W']
    params['b'] -= lr * grads['b']

print("Trained Parameters:")
print("W:", params['W'])
print("b:", params['b'])

if __name__ == "__main__":
    # observed: line 37 draws the initial weight from the noise key: W_init == noise[0]
    assert jnp.allclose(W_init, noise[:1], atol=1e-6), (W_init, noise[:1])
