# source: https://github.com/mnuhn/jax-playground/blob/dc93559dd3ee58af371e1726d269afa524fedb79/002-MNIST-Dense/train.py
#   (a personal "jax-playground" project: a dense MNIST classifier trained with jitted loss
#   and gradient functions and an epoch-shuffling batch generator)
# observed on jax 0.10.2 CPU: datastream rebuilds `key = random.PRNGKey(0)` at the top of
#   every epoch, so every epoch draws the very same permutation (the epoch-2 shuffle of the
#   already shuffled data equals the epoch-1 shuffle); the author's comment says the data is
#   meant to be "permuted once every epoch". The same loop is in 003-MNIST-LeNet/train.py.
# changed/added: reader.get_data (gzip MNIST files) replaced by 64 small random images whose
#   pixels all hold the image's index, with one-hot labels; `p.parse_args()` given
#   `['--epochs', '2', '--batch_size', '16']`; the OptaxAdam class of helpers/optimize.py
#   inlined; helpers.train_loop replaced by its core (next batch, update, losses) without
#   tqdm and eval_print; the __main__ block added.
# gap: other
import argparse
import numpy as np

from jax import grad, jit, random
import jax.numpy as jnp
import jax.nn as nn
import jax
import optax

NUM_ROWS = 28
NUM_COLS = 28

p = argparse.ArgumentParser(description='...')
p.add_argument('--batch_size', type=int, default=32)
p.add_argument('--optimizer',
               choices=['sgd', 'adam', 'self_sgd'], default='adam')
p.add_argument('--learning_rate', type=float, default=0.001)
p.add_argument('--learning_rate_decay', type=float, default=0.01)
p.add_argument('--learning_rate_decay_epoch_step', type=int, default=10)
p.add_argument('--bias_term', type=bool, default=True)
p.add_argument('--layers', type=str, default='120,84,10')
p.add_argument('--epochs', type=float, default=300)

args = p.parse_args(['--epochs', '2', '--batch_size', '16'])
print('args:', args)

print('JAX devices:', jax.devices())
backend = 'cpu'

N_STANDIN = 64
train_images = np.ones((N_STANDIN, NUM_ROWS, NUM_COLS), np.float32) * np.arange(N_STANDIN, dtype=np.float32)[:, None, None] / N_STANDIN
train_labels = np.eye(10, dtype=np.float32)[np.arange(N_STANDIN) % 10]
test_images, test_labels = train_images[:16], train_labels[:16]

# Place on device.
train_images = jnp.array(train_images)
train_labels = jnp.array(train_labels)
test_images = jnp.array(test_images)
test_labels = jnp.array(test_labels)
num_batches = int(train_images.shape[0]/args.batch_size)

def datastream(batch_size):
  global num_batches
  global train_images, train_labels
  while True:
    key = random.PRNGKey(0)  # expect: JIT502
    perm = jax.random.permutation(key, train_images.shape[0])
    train_images = train_images[perm]
    train_labels = train_labels[perm]
    # Note: We permute the data once every epoch in memory, and then only serve
    # contiguous batches from this. This looked much faster in some of my tests
    # - but I didn't check thoroughly to be really certain.
    for i in range(0, num_batches):
      yield (
              train_images[i*batch_size:(i+1)*batch_size],
              train_labels[i*batch_size:(i+1)*batch_size])

class DenseModel():
  '''Simple dense model.'''
  def __init__(self, num_pixels, num_classes, layers, bias_term):
    self.num_pixels = num_pixels
    self.num_classes = num_classes
    self.layers = layers
    self.params = []
    self.bias_term = bias_term

    # Initialize such that standard deviation on output is 1.
    layer = np.random.normal(size=(NUM_ROWS, NUM_COLS, self.layers[0]),
                             loc=0,scale=1.0/num_pixels**0.5)
    self.params.append(layer)

    if self.bias_term:
      layer = np.zeros(shape=self.layers[0])
      self.params.append(layer)

    for i in range(1, len(layers)):
      # Initialize such that standard deviation on output is 1.
      layer = np.random.normal(size=(self.layers[i-1], self.layers[i]),
                               loc=0,scale=(1.0/self.layers[i-1])**0.5)
      self.params.append(layer)
      if self.bias_term:
        layer = np.zeros(shape=self.layers[i])
        self.params.append(layer)

    for i in range(0, len(self.params)):
      self.params[i] = jnp.array(self.params[i])

  # Returns log softmax.
  def predict(self, params, x):
    if not self.bias_term:
      a = nn.relu(jnp.einsum('xyi,bxy',params[0],x))
      for i in range(1, len(self.layers) - 1):
        a = nn.relu(jnp.einsum('ij,bi',params[i],a))
      a = nn.log_softmax(jnp.einsum('ic,bi',params[-1],a))
    else:
      a = nn.relu(jnp.einsum('xyi,bxy',params[0],x) + params[1])
      for i in range(1, len(self.layers) - 1):
        a = nn.relu(jnp.einsum('ij,bi',params[i*2],a) + params[i*2+1])
      a = nn.log_softmax(jnp.einsum('ic,bi',params[-2],a) + params[-1])

    return a

  def print(self):
    print('Model dump:')
    for cur_param in self.params:
      print('* ', cur_param.shape)
      print(cur_param)
    print()


  def loss(self, params, batch_images,batch_labels):
    return - jnp.mean(batch_labels * self.predict(params,batch_images))

  def test_loss(self, params):
    return - jnp.mean(test_labels * self.predict(params,test_images))


class OptaxAdam:
  """Wrapper for Optax ADAM."""
  def __init__(self, model, learning_rate):
    self.model = model
    self.tx = optax.adam(learning_rate=learning_rate)
    self.opt_state = self.tx.init(model.params)

  def update(self, cur_images, cur_labels):
    g_params = self.model.gradient(self.model.params,cur_images,cur_labels)
    updates, self.opt_state = self.tx.update(g_params, self.opt_state)
    self.model.params = optax.apply_updates(self.model.params, updates)


layers = [int(x) for x in args.layers.split(',')]

model = DenseModel(train_images.shape[1], train_labels.shape[1],
                   layers=layers, bias_term=args.bias_term)

predict = jit(model.predict, backend=backend)

model.loss = jit(model.loss, backend=backend)
model.test_loss = jit(model.test_loss, backend=backend)
model.gradient = jit(grad(model.loss, argnums=0), backend=backend)

batches = datastream(batch_size=args.batch_size)

opt = OptaxAdam(model, learning_rate=args.learning_rate)

iterations = int(train_images.shape[0] / args.batch_size * args.epochs)
for i in range(iterations):
  cur_images, cur_labels = next(batches)
  opt.update(cur_images, cur_labels)
  cur_loss = model.loss(model.params, cur_images, cur_labels)
  cur_test_loss = model.test_loss(model.params)
print(f"train_loss={cur_loss:.3f} test_loss={cur_test_loss:.3f}")


if __name__ == "__main__":
  # Each image's pixels hold its index: read back which images every batch serves.
  start = np.asarray(train_images[:, 0, 0] * N_STANDIN).round().astype(int)
  stream = datastream(batch_size=args.batch_size)
  served = [np.asarray(next(stream)[0][:, 0, 0] * N_STANDIN).round().astype(int)
            for _ in range(2 * num_batches)]
  epoch1 = np.concatenate(served[:num_batches])
  epoch2 = np.concatenate(served[num_batches:])
  # The permutation applied in each epoch, recovered from the order served.
  perm1 = np.argsort(start)[epoch1]
  perm2 = np.argsort(epoch1)[epoch2]
  assert sorted(epoch1) == list(range(N_STANDIN))
  assert not (perm1 == np.arange(N_STANDIN)).all()
  # observed: line 59 rebuilds the key from seed 0 every epoch: epoch 2 shuffles with exactly
  #   the permutation epoch 1 used
  assert (perm1 == perm2).all(), (perm1, perm2)
  expected = np.asarray(jax.random.permutation(random.PRNGKey(0), N_STANDIN))  # tolerate: JIT502
  assert (perm1 == expected).all()
  print("OK: the same permutation every epoch")
