# source: https://theneuralbase.com/jax/learn/intermediate/jit-compiled-train-step/
#   (the page's code example, up to where the page is cut off, inside the training loop)
# observed on jax 0.10.2 CPU: X, y and the initial params are all drawn from the one key
#   PRNGKey(0): y is the first 100 numbers of X (row-major) and params the first ten, so the
#   targets are a copy of the inputs rather than independent noise and the starting
#   weights are the first data row. Both later draws are a KeyReuseError under
#   jax_debug_key_reuse. Added: `initial_params` and the __main__ block; the loop keeps only its first line
#   (`loss = ` is where the page is cut off).
# gap: other
import jax
import jax.numpy as jnp
from jax import grad
key = jax.random.PRNGKey(0)
X = jax.random.normal(key, (100, 10))
y = jax.random.normal(key, (100, 1))  # expect: JIT502
def loss_fn(params, X, y):
    pred = jnp.dot(X, params)
    return jnp.mean((pred - y) ** 2)
def grad_fn(params, X, y):
    return grad(loss_fn)(params, X, y)
params = jax.random.normal(key, (10, 1))  # expect: JIT502
initial_params = params
lr = 0.01
def train_step(params, X, y):
    g = grad_fn(params, X, y)
    return params - lr * g
compiled_train_step = jax.jit(train_step)
for step in range(3):
    params = compiled_train_step(params, X, y)

if __name__ == "__main__":
    # observed: line 15 draws the targets from the key of X: y is X's first 100 numbers
    assert jnp.array_equal(y.ravel(), X.ravel()[:100])
    # observed: line 21 draws the initial params from the same key: X's first row
    assert jnp.array_equal(initial_params.ravel(), X[0])
