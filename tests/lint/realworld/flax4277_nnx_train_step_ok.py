# source: https://github.com/google/flax/pull/4277 (the train and eval steps of the Flax
#   NNX MNIST tutorial under review; `nnx.Optimizer` now takes `wrt` and
#   `optimizer.update(model, grads)`, and a small MLP and random batch stand in for the CNN
#   and MNIST)
# observed on jax 0.10.2 CPU with flax 0.12: runs clean: nnx.jit propagates the in-place
#   updates of the model, optimizer and metrics.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
import optax
from flax import nnx


class CNN(nnx.Module):
  def __init__(self, *, rngs: nnx.Rngs):
    self.linear1 = nnx.Linear(8, 16, rngs=rngs)
    self.linear2 = nnx.Linear(16, 10, rngs=rngs)

  def __call__(self, x):
    return self.linear2(nnx.relu(self.linear1(x)))


model = CNN(rngs=nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.adamw(0.005, 0.9), wrt=nnx.Param)
metrics = nnx.MultiMetric(
  accuracy=nnx.metrics.Accuracy(),
  loss=nnx.metrics.Average('loss'),
)


def loss_fn(model: CNN, batch):
  logits = model(batch['image'])
  loss = optax.softmax_cross_entropy_with_integer_labels(
    logits=logits, labels=batch['label']
  ).mean()
  return loss, logits

@nnx.jit
def train_step(model: CNN, optimizer: nnx.Optimizer, metrics: nnx.MultiMetric, batch):
  """Train for a single step."""
  grad_fn = nnx.value_and_grad(loss_fn, has_aux=True)
  (loss, logits), grads = grad_fn(model, batch)
  metrics.update(loss=loss, logits=logits, labels=batch['label'])  # In-place updates.
  optimizer.update(model, grads)  # In-place updates.

@nnx.jit
def eval_step(model: CNN, metrics: nnx.MultiMetric, batch):
  loss, logits = loss_fn(model, batch)
  metrics.update(loss=loss, logits=logits, labels=batch['label'])  # In-place updates.


if __name__ == "__main__":
  batch = {
    'image': jax.random.normal(jax.random.key(0), (4, 8)),
    'label': jnp.array([0, 1, 2, 3]),
  }
  before = model.linear1.kernel.value
  train_step(model, optimizer, metrics, batch)
  eval_step(model, metrics, batch)
  assert not jnp.allclose(before, model.linear1.kernel.value)
  print(metrics.compute())
