# source: https://github.com/mashaan14/YouTube-channel/blob/5650ca2d908907fc2fc78b24d6242bd32373cc3b/jax_performance/2024_04_14_jax_speed_test.md
#   (a YouTube tutorial's notebook "JAX Speed Test": sections "Toy Dataset", "MLP",
#   "MLP Training (JIT mode)" and "Printing cache size")
# observed on jax 0.10.2 CPU: runs clean. apply_model and update_model are jitted once at
#   module level; the TrainState keeps the same apply_fn (flax's bound `model.apply`, a
#   static field that compares equal across states), so training traces apply_model once
#   per batch shape (the post's cache-size printout: 0, then 1, then 2 at the shorter last
#   batch), plus once more after the first step, when the TrainState's `step` turns from
#   the Python int 0 into a weakly typed int32 array; the second epoch adds no program
#   (cache sizes 3 and 2 after one epoch and after two). Loss falls. `model.init` gets a
#   fresh PRNGKey(SEED), the parent of the split that draws the dummy input: the input
#   only gives init its shape, and JAX's key-reuse checker (typed keys) reports nothing.
# gap: per-call-recompile
# added: NumPy stand-ins for scikit-learn's make_blobs and make_circles and for torch's
#   data.Dataset, data.random_split and data.DataLoader (not installed), giving the same
#   nested-class layout and numpy batches; the imports the cells use; train_model runs 2
#   epochs in __main__ instead of the post's %timeit of one epoch. Left out: the plots,
#   the no-jit variant, and the CIFAR10 CNN sections (torchvision).
import types

import numpy as np

import jax
import jax.numpy as jnp
from flax import linen as nn
from flax.training import train_state
import optax


def make_blobs(n_samples, n_features, centers, cluster_std, random_state):
    # stand-in for sklearn.datasets.make_blobs
    rng = np.random.RandomState(random_state)
    y = np.arange(n_samples) % centers
    c = rng.uniform(-10, 10, size=(centers, n_features))
    return c[y] + cluster_std * rng.normal(size=(n_samples, n_features)), y


def make_circles(n_samples, noise, factor, random_state):
    # stand-in for sklearn.datasets.make_circles with (n_outer, n_inner) samples
    rng = np.random.RandomState(random_state)
    n_out, n_in = n_samples
    t_out = rng.uniform(0, 2 * np.pi, n_out)
    t_in = rng.uniform(0, 2 * np.pi, n_in)
    X = np.concatenate([np.c_[np.cos(t_out), np.sin(t_out)],
                        factor * np.c_[np.cos(t_in), np.sin(t_in)]])
    X = X + noise * rng.normal(size=X.shape)
    return X, np.r_[np.zeros(n_out, int), np.ones(n_in, int)]


class _Subset:
    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, indices

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, i):
        return self.dataset[self.indices[i]]


def _random_split(dataset, lengths, generator=None):
    idx = np.random.RandomState(0).permutation(len(dataset))
    return [_Subset(dataset, idx[:lengths[0]]), _Subset(dataset, idx[lengths[0]:])]


def _data_loader(dataset, batch_size, shuffle, collate_fn):
    return [collate_fn([dataset[j] for j in range(i, min(i + batch_size, len(dataset)))])
            for i in range(0, len(dataset), batch_size)]


data = types.SimpleNamespace(Dataset=object, random_split=_random_split, DataLoader=_data_loader)

IMAGE_SIZE = 32
BATCH_SIZE = 128
DATA_MEANS = np.array([0.49139968, 0.48215841, 0.44653091])
DATA_STD = np.array([0.24703223, 0.24348513, 0.26158784])
CROP_SCALES = (0.8, 1.0)
CROP_RATIO = (0.9, 1.1)
SEED = 42

class ToyDataset(data.Dataset):

  def __init__(self, size, seed):
    super().__init__()
    self.size = size
    self.np_rng = np.random.RandomState(seed=seed)
    self.make_nested_classes()

  def make_nested_classes(self):
    X, y = make_blobs(n_samples=int(self.size*0.2), n_features=2, centers=2, cluster_std=1.9, random_state=SEED)
    X1, y1 = make_circles(n_samples=(int(self.size*0.6), int(self.size*0.2)), noise=0.05, factor=0.1, random_state=SEED)
    # increase the radius
    X1 = X1*3
    # move along the x-axis
    X1[:,0] = X1[:,0]+2.5
    # move along the y-axis
    X1[:,1] = X1[:,1]-7

    X = np.concatenate((X, X1), axis=0)
    y = np.concatenate((y, y1), axis=0)

    self.data = X
    self.label = y

  def __len__(self):
    return self.size

  def __getitem__(self, idx):
    data_point = self.data[idx]
    data_label = self.label[idx]
    return data_point, data_label

dataset = ToyDataset(size=10000, seed=SEED)

train_size = int(0.8 * len(dataset))
test_size = len(dataset) - train_size
train_dataset, test_dataset = data.random_split(dataset, [train_size, test_size], generator=None)

# A helper function that converts batches into numpy arrays instead of the default option which is torch tensors
def numpy_collate(batch):
  if isinstance(batch[0], np.ndarray):
    return np.stack(batch)
  elif isinstance(batch[0], (tuple, list)):
    transposed = zip(*batch)
    return [numpy_collate(samples) for samples in transposed]
  else:
    return np.array(batch)

train_data_loader = data.DataLoader(train_dataset, batch_size=BATCH_SIZE, shuffle=False, collate_fn=numpy_collate)
test_data_loader = data.DataLoader(test_dataset, batch_size=BATCH_SIZE, shuffle=False, collate_fn=numpy_collate)

class MLPClassifier(nn.Module):
    hidden_layers: int
    hidden_dim: int
    n_classes: int

    @nn.compact
    def __call__(self, x):
        for layer in range(self.hidden_layers):
            x = nn.Dense(self.hidden_dim)(x)
            x = nn.relu(x)
        x = nn.Dense(self.n_classes)(x)
        x = nn.log_softmax(x)
        return x

model = MLPClassifier(hidden_layers=1, hidden_dim=10, n_classes=2)
print(model)

optimizer = optax.adam(learning_rate=0.01)

rng, inp_rng, init_rng = jax.random.split(jax.random.PRNGKey(SEED), 3)
params = model.init(jax.random.PRNGKey(SEED),
                    jax.random.normal(inp_rng, (BATCH_SIZE, dataset.data.shape[1])))

model_state = train_state.TrainState.create(apply_fn=model.apply,
                                            params=params,
                                            tx=optimizer)

@jax.jit
def apply_model(state, images, labels):
  """Computes gradients, loss and accuracy for a single batch."""

  def loss_fn(params):
    logits = state.apply_fn(params, images)
    one_hot = jax.nn.one_hot(labels, logits.shape[1])
    loss = jnp.mean(optax.softmax_cross_entropy(logits=logits, labels=one_hot))
    return loss, logits

  grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
  (loss, logits), grads = grad_fn(state.params)
  accuracy = jnp.mean(jnp.argmax(logits, -1) == labels)
  return grads, loss, accuracy

@jax.jit
def update_model(state, grads):
  return state.apply_gradients(grads=grads)

def train_epoch(state, data_loader):
  """Train for a single epoch."""

  epoch_loss = []
  epoch_accuracy = []

  for batch in data_loader:
    batch_images, batch_labels = batch
    grads, loss, accuracy = apply_model(state, batch_images, batch_labels)
    state = update_model(state, grads)
    epoch_loss.append(loss)
    epoch_accuracy.append(accuracy)
  train_loss = np.mean(epoch_loss)
  train_accuracy = np.mean(epoch_accuracy)
  return state, train_loss, train_accuracy

def train_model(state, train_data_loader, num_epochs):
  # Training loop
  for epoch in range(num_epochs):
    state, train_loss, train_accuracy = train_epoch(state, train_data_loader)
    print(f'epoch: {epoch:03d}, train loss: {train_loss:.4f}, train accuracy: {train_accuracy:.4f}')
  return state


if __name__ == "__main__":
    _, loss0, _ = apply_model(model_state, *train_data_loader[0])
    state1 = train_model(model_state, train_data_loader, num_epochs=1)
    # 8000 training points: 62 batches of 128 and one of 64; the int step of the fresh
    # state adds one program, once
    sizes = (apply_model._cache_size(), update_model._cache_size())
    assert sizes == (3, 2), sizes
    trained = train_model(state1, train_data_loader, num_epochs=1)
    assert (apply_model._cache_size(), update_model._cache_size()) == sizes
    _, loss1, _ = apply_model(trained, *train_data_loader[0])
    assert float(loss1) < float(loss0), (loss0, loss1)
