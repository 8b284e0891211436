# source: https://github.com/Vodolay/NovaJax/blob/1f62b16b456b4539d949b00070c5f15e55e507b8/mnist.ipynb
#   (a learner's Flax CNN on MNIST: the model, the TrainState, and the jitted `pred_step`
#   used on a test batch after restoring a checkpoint)
# observed on jax 0.10.2 CPU: pred_step takes `batch` but applies the model to the global
#   `test_batch`, which jit reads once, while tracing, and bakes into the program as a
#   constant. The notebook only calls it with test_batch itself, so its plot looks right;
#   any other batch gets test_batch's predictions (a batch of 8 images returns the 32
#   predictions of test_batch, and another batch of 32 the same predictions as before).
#   Stand-ins: `test_ds` is a small object whose as_numpy_iterator() yields two batches of
#   random images, with tf.data's .next() (the notebook loads MNIST with tfds); TrainState's `metrics` field holds
#   None (clu's metrics.Collection is not installed) and `key` is annotated jax.Array
#   (jax.random.KeyArray no longer exists); `state_restored` is the fresh state (no
#   checkpoint here). Left out: the training loop, metrics, orbax checkpointing and plots.
# gap: stale-state-attributes
import os

import jax
import jax.numpy as jnp

from flax import linen as nn
from flax.training import train_state
import optax
import numpy as np

from typing import Any

# Setting up a template; the parameters (kernels, biases, etc.) are a separate object
class CNN(nn.Module):
    
  # __call__ subsumes __init__  
  @nn.compact
  def __call__(self, x, training):
    # Shape is (1, 28, 28, 1)
    x = nn.Conv(features=8, kernel_size=(3, 3))(x)
    # Shape is (1, 28, 28, 8)
    x = nn.gelu(x)
    x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
    # Shape is (1, 14, 14, 8)
    x = nn.Conv(features=16, kernel_size=(3, 3))(x)
    # Shape is (1, 14, 14, 16)
    x = nn.gelu(x)
    x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
    # Shape is (1, 7, 7, 16)
    x = x.reshape((x.shape[0], -1))  # flatten but keep batch dimension
    # Shape is (1, 784 = 7x7x16)
    x = nn.Dense(features=128)(x)
    x = nn.BatchNorm(use_running_average=not training)(x)
    # Shape is (1, 128)
    x = nn.gelu(x)
    x = nn.Dense(features=32)(x)
    x = nn.BatchNorm(use_running_average=not training)(x)
    # Shape is (1, 32)
    x = nn.gelu(x)
    x = nn.Dense(features=10)(x)
    # Shape is (1, 10)
    return x

class TrainState(train_state.TrainState):
  # Our train state will have metrics attribute
  metrics: Any
  # and batch_stats
  batch_stats: Any     
  # It will also have a dropout key
  key: jax.Array

# We also need JAX PRNGKey for the parameter initialization
root_key = jax.random.PRNGKey(42)
main_key, params_key, dropout_key = jax.random.split(key=root_key, num=3)

# Initialize the model
cnn = CNN()
# initialize parameters by passing a template image
variables = cnn.init(params_key, 
                jnp.ones([1, 28, 28, 1]), 
                training=False)
params = variables['params']
batch_stats = variables['batch_stats']

# The optimizer parameters
learning_rate = 0.0006
tx=optax.adam(learning_rate)


class _TestDs:  # stand-in for the tfds test split: two batches of 32 random images
  def __init__(self):
    rng = np.random.default_rng(0)
    self._batches = [{'image': rng.random((32, 28, 28, 1), dtype=np.float32),
                      'label': rng.integers(0, 10, 32)} for _ in range(2)]

  def as_numpy_iterator(self):
    return _NumpyIterator(self._batches)

class _NumpyIterator:  # tf.data's NumPy iterator has a .next() method
  def __init__(self, batches):
    self._it = iter(batches)

  def __iter__(self):
    return self

  def __next__(self):
    return next(self._it)

  def next(self):
    return next(self._it)

test_ds = _TestDs()

#We need an empty state template to restore the saved model
empty_state = TrainState.create(
      apply_fn=cnn.apply, 
      params=params,
      batch_stats=batch_stats,
      key=dropout_key, 
      tx=tx,
      metrics=None)

state_restored = empty_state

@jax.jit
def pred_step(state, batch):
  logits = state.apply_fn({'params': state.params, 'batch_stats': state.batch_stats}, 
                          test_batch['image'], training=False)  # expect: JIT201
  return logits.argmax(axis=1)

test_batch = test_ds.as_numpy_iterator().next()
pred = pred_step(state_restored, test_batch)


if __name__ == "__main__":
    it = test_ds.as_numpy_iterator()
    next(it)
    other = next(it)
    # observed: line 122 applies the model to the global test_batch, frozen in at trace time
    small = {'image': other['image'][:8], 'label': other['label'][:8]}
    assert pred_step(state_restored, small).shape == (32,)
    stale = pred_step(state_restored, other)
    assert (stale == pred).all()
    logits_other = cnn.apply({'params': params, 'batch_stats': batch_stats},
                             other['image'], training=False)
    logits_first = cnn.apply({'params': params, 'batch_stats': batch_stats},
                             test_batch['image'], training=False)
    assert not jnp.allclose(logits_other, logits_first)
