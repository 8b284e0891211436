# source: https://aarmey.github.io/ml-for-bioe/lectures/neural-networks.html
#   (a lecture's JAX/Optax training code for a multilayer network)
# observed on jax 0.10.2 CPU: runs clean; grad_fn = jax.jit(jax.grad(loss_fn)) is made once,
#   before the loop, so every batch of the same shape reuses one compilation, and the loop
#   over the list of (W, b) layers in predict unrolls over a Python list. The lecture leaves
#   `params` and `dataloader` undefined; the stand-ins are a two-layer parameter list drawn
#   from split keys and a list of four random batches (added, with the __main__ block).
# gap: per-call-recompile
import jax
import jax.numpy as jnp
import optax # gradient-based optimizers

k1, k2, k3, k4 = jax.random.split(jax.random.key(0), 4)
params = [(jax.random.normal(k1, (3, 8)) * 0.1, jnp.zeros(8)),
          (jax.random.normal(k2, (8, 1)) * 0.1, jnp.zeros(1))]
xs = jax.random.normal(k3, (4, 16, 3))
ys = jax.random.normal(k4, (4, 16, 1))
dataloader = list(zip(xs, ys))

# Define network forward pass
def predict(params, x):
    for W, b in params[:-1]:
        x = jax.nn.relu(x @ W + b)
    W, b = params[-1]
    return x @ W + b
# Loss function
def loss_fn(params, x_batch, y_batch):
    preds = predict(params, x_batch)
    return jnp.mean((preds - y_batch) ** 2)
# Gradient via reverse-mode autodiff
grad_fn = jax.jit(jax.grad(loss_fn))
# Stochastic gradient descent step
optimizer = optax.adam(learning_rate=1e-3)
opt_state = optimizer.init(params)
for x_batch, y_batch in dataloader:
    grads = grad_fn(params, x_batch, y_batch)
    updates, opt_state = optimizer.update(grads, opt_state)
    params = optax.apply_updates(params, updates)

if __name__ == "__main__":
    assert grad_fn._cache_size() == 1
    assert len(params) == 2 and params[0][0].shape == (3, 8)
