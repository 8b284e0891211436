# source: https://github.com/google/flax/pull/2631 (the "Dropout in image classification"
#   tutorial the pull request adds, docs/tutorials/dropout_tutorial.md at 6624b042; the
#   reviewer: "you need to split a different key on each step so that different activation
#   happens")
# observed on jax 0.10.2 CPU (flax 0.12.8): the jitted train_step closes over the
#   module-level dropout_key, so every step draws the same dropout mask (two steps at
#   different step counts from one state on one batch give identical loss and accuracy);
#   the epoch loop splits the same root_key every epoch (already split for params_key and
#   dropout_key), so every epoch gets the same input_rng and the same shuffle. Added: the
#   imports the notebook's setup cell makes; get_datasets returns small random MNIST-shaped
#   stand-ins instead of loading MNIST with tensorflow_datasets, which is not installed.
# gap: other
import jax
import jax.numpy as jnp                # JAX NumPy

from flax import linen as nn           # The Flax Linen API
from flax.training import train_state  # A Flax dataclass to keep the train state

import numpy as np                     # Ordinary NumPy
import optax                           # The Optax library

seed = 0
root_key = jax.random.PRNGKey(seed=seed)
main_key, params_key, dropout_key = jax.random.split(key=root_key, num=3)

# A simple convolutional network with a dropout layer.
class CNN(nn.Module):
  training: bool
  @nn.compact
  def __call__(self, x):
    x = nn.Conv(features=32, kernel_size=(3, 3))(x)
    x = nn.relu(x)
    x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
    x = nn.Conv(features=64, kernel_size=(3, 3))(x)
    x = nn.relu(x)
    x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
    x = x.reshape((x.shape[0], -1))  # Flatten
    # Set the dropout layer with a rate of 50% .
    # When the `deterministic` flag is `True`, dropout is turned off.
    x = nn.Dropout(rate=0.5, deterministic=not self.training)(x)
    x = nn.Dense(features=10)(x)
    return x

def cross_entropy_loss(*, logits, labels):
  labels_onehot = jax.nn.one_hot(labels, num_classes=10)
  return optax.softmax_cross_entropy(logits=logits, labels=labels_onehot).mean()

def compute_metrics(*, logits, labels):
  loss = cross_entropy_loss(logits=logits, labels=labels)
  accuracy = jnp.mean(jnp.argmax(logits, -1) == labels)
  metrics = {
      'loss': loss,
      'accuracy': accuracy,
  }
  return metrics

def get_datasets():
  # Stand-in for tfds.load('mnist'): 64 training and 32 test images.
  rs = np.random.RandomState(0)
  train_ds = {'image': rs.rand(64, 28, 28, 1).astype(np.float32),
              'label': rs.randint(0, 10, 64)}
  test_ds = {'image': rs.rand(32, 28, 28, 1).astype(np.float32),
             'label': rs.randint(0, 10, 32)}
  return train_ds, test_ds

def create_train_state(rng, learning_rate):
  # Instantiate the model with `training=False`.
  cnn = CNN(training=False)
  # Initialize the `params`. Use the `params_key` PRNG key.
  # (Here, you are providing only one PRNG key.) 
  params = cnn.init(rng, jnp.ones([1, 28, 28, 1]))['params']
  # Use the Adam optimizer with a learning rate.
  tx = optax.adam(learning_rate)
  return train_state.TrainState.create(
      apply_fn=cnn.apply, params=params, tx=tx)

@jax.jit
def train_step(state, batch):
  """Train for a single step."""
  def loss_fn(params):
    # Perform the forward pass with `flax.linen.apply()`.
    # Use the `dropout_key` for the `rngs` argument.
    logits = CNN(training=True).apply({'params': params}, batch['image'], rngs={'dropout': dropout_key})  # expect: JIT502
    # Calculatet the loss,
    loss = cross_entropy_loss(logits=logits, labels=batch['label'])
    return loss, logits
  # Compute the gradients
  grad_fn = jax.grad(loss_fn, has_aux=True)
  grads, logits = grad_fn(state.params)
  state = state.apply_gradients(grads=grads)
  metrics = compute_metrics(logits=logits, labels=batch['label'])
  return state, metrics

@jax.jit
def eval_step(params, batch):
  logits = CNN(training=False).apply({'params': params}, batch['image'])
  return compute_metrics(logits=logits, labels=batch['label'])

def train_epoch(state, train_ds, batch_size, epoch, rng):
  train_ds_size = len(train_ds['image'])
  steps_per_epoch = train_ds_size // batch_size

  perms = jax.random.permutation(rng, train_ds_size)
  perms = perms[:steps_per_epoch * batch_size]  # Skip an incomplete batch.
  perms = perms.reshape((steps_per_epoch, batch_size))
  batch_metrics = []
  for perm in perms:
    batch = {k: v[perm, ...] for k, v in train_ds.items()}
    state, metrics = train_step(state, batch)
    batch_metrics.append(metrics)

  # Compute the mean of metrics across each batch in an epoch.
  batch_metrics_np = jax.device_get(batch_metrics)
  epoch_metrics_np = {
      k: np.mean([metrics[k] for metrics in batch_metrics_np])
      for k in batch_metrics_np[0]}

  print('Train epoch: %d, loss: %.4f, accuracy: %.2f' % (
      epoch, epoch_metrics_np['loss'], epoch_metrics_np['accuracy'] * 100))

  return state

def eval_model(params, test_ds):
  metrics = eval_step(params, test_ds)
  metrics = jax.device_get(metrics)
  summary = jax.tree_util.tree_map(lambda x: x.item(), metrics)
  return summary['loss'], summary['accuracy']

train_ds, test_ds = get_datasets()

learning_rate = 0.1

state = create_train_state(rng=params_key, learning_rate=learning_rate)

num_epochs = 10
batch_size = 32

for epoch in range(1, num_epochs + 1):
  # Use a separate PRNG key to permute image data during shuffling.
  main_key, input_rng = jax.random.split(key=root_key)  # expect: JIT502
  # Run an optimization step over a training batch.
  state = train_epoch(state=state,
                      train_ds=train_ds,
                      batch_size=batch_size,
                      epoch=epoch,
                      rng=input_rng)
  # Evaluate on the test set after each training epoch.
  test_loss, test_accuracy = eval_model(state.params, test_ds)
  print('  Test epoch: %d, loss: %.2f, accuracy: %.2f' % (
      epoch, test_loss, test_accuracy * 100))


if __name__ == "__main__":
  batch = {k: v[:32] for k, v in train_ds.items()}
  state0 = create_train_state(rng=jax.random.PRNGKey(2), learning_rate=learning_rate)
  # Dropout is active: two fresh keys give two different outputs.
  k1, k2 = jax.random.split(jax.random.PRNGKey(1))
  y1 = CNN(training=True).apply({'params': state0.params}, batch['image'], rngs={'dropout': k1})
  y2 = CNN(training=True).apply({'params': state0.params}, batch['image'], rngs={'dropout': k2})
  assert not np.allclose(y1, y2)
  _, m_a = train_step(state0, batch)
  _, m_b = train_step(state0.replace(step=state0.step + 7), batch)
  # observed: line 83 draws the same dropout mask on every step: steps 0 and 7 from one
  #   state on one batch give identical loss
  assert float(m_a['loss']) == float(m_b['loss']), (m_a, m_b)
  # observed: line 140 splits the same root_key in every epoch: the last epoch's input_rng
  #   equals the first epoch's, so every epoch shuffles the data the same way
  first_input_rng = jax.random.split(key=root_key)[1]  # tolerate: JIT502
  assert (first_input_rng == input_rng).all()
