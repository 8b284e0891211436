# source: https://github.com/darothen/homepage/blob/6bfaac6f106ed796ad3944c2fc21f6c0a896ea93/content_old/notebooks/jax-first-steps-pt2.ipynb
#   (the notebook of the blog post "First Steps with Jax, Part 2": cells 3, 5, 14, 16, 18,
#   20, 23, 26 and 28; the plotting, the scikit-learn baseline and the pandas frames left out)
# observed on jax 0.10.2 CPU: runs clean. train_step is jitted once at module level; the
#   step counter from itertools.count() is a Python int traced as a weak int32 scalar, so
#   the 250 full-batch steps share one compilation; inside loss, log_p[np.arange(m),
#   targets] indexes with a NumPy arange of the static batch length and the traced
#   targets, which jit accepts. `jax.experimental.stax` and `jax.experimental.optimizers`
#   (removed) are spelled `jax.example_libraries.stax` and `jax.example_libraries.optimizers`.
#   scikit-learn is not installed: make_circles, StandardScaler and train_test_split are
#   replaced by NumPy stand-ins (two noisy circles of radius 1 and 0.5, standardised, 30%
#   held out). Added: the stand-ins and the __main__ block.
# gap: other
import numpy as np
import jax


def make_circles(noise, factor, random_state, n_samples):  # stand-in for sklearn's
    rs = np.random.RandomState(random_state)
    t = rs.uniform(0, 2 * np.pi, n_samples)
    y = np.arange(n_samples) % 2
    r = np.where(y == 1, factor, 1.0)
    X = np.c_[r * np.cos(t), r * np.sin(t)] + rs.normal(scale=noise, size=(n_samples, 2))
    return X, y


class StandardScaler:  # stand-in for sklearn's
    def fit_transform(self, X):
        return (X - X.mean(0)) / X.std(0)


def train_test_split(X, y, test_size, random_state):  # stand-in for sklearn's
    idx = np.random.RandomState(random_state).permutation(len(X))
    n_test = int(round(test_size * len(X)))
    test, train = idx[:n_test], idx[n_test:]
    return X[train], X[test], y[train], y[test]


n = 200

X, y = make_circles(noise=0.2, factor=0.5, random_state=1337, n_samples=n)
X = StandardScaler().fit_transform(X)

X_train, X_test, y_train, y_test = \
    train_test_split(X, y, test_size=0.3, random_state=42)

from jax.nn import sigmoid
from jax.example_libraries.stax import elementwise

def swish(x, beta=1):
    return x * sigmoid(beta * x)
Swish = elementwise(swish) # Save for later!

from jax.example_libraries.stax import serial, Dense, Sigmoid

n_hidden = 64  # number of hidden connections in our MLP
n_out = 2  # we have a two-class prediction problem

init_random_params, predict = serial(
    Dense(n_hidden),
    Swish,
    Dense(n_out),
)

from jax.example_libraries.optimizers import momentum

opt_init, opt_update, get_params = \
    momentum(step_size=0.05, mass=0.9)

from jax import random

# Prepare a random number generator to initialize the model
rng = random.PRNGKey(0)

# Initialize the model
_, init_params = init_random_params(rng, input_shape=(-1, 2))

# Initialize the optimizer
opt_state = opt_init(init_params)

import jax.numpy as jnp
from jax.example_libraries.stax import log_softmax

def loss(params, batch):
    """ Cross-entropy loss based on predicted labels in the batch """
    inputs, targets = batch
    output = predict(params, inputs)

    m = targets.shape[0]
    log_p = log_softmax(output)
    log_likelihood = -log_p[np.arange(m), targets]

    return jnp.mean(log_likelihood)

def accuracy(params, batch):
    """ Compute accuracy as a percentage of correct labels in batch """
    inputs, targets = batch
    output = predict(params, inputs)
    
    predicted_class = jnp.argmax(output, axis=1)

    return jnp.mean(predicted_class == targets)

from jax import jit, grad

@jit
def train_step(i, opt_state, batch):
    params = get_params(opt_state)
    return opt_update(i, grad(loss)(params, batch), opt_state)

from itertools import count

n_epochs = 250
use_batches = False
batch_size = 32
out_freq = 50

# Training loop
all_metrics = []
icount = count()
for i in range(n_epochs):

    # Prepare a batch of data and perform a training step
    train_batch = (X_train, y_train)
    opt_state = train_step(next(icount), opt_state, train_batch)

    # Evaluate the model accuracy so far
    params = get_params(opt_state)
    test_batch = (X_test, y_test)
    _metrics = {
        'train_loss': loss(params, train_batch),
        'test_loss': loss(params, test_batch),
        'train_acc': accuracy(params, train_batch),
        'test_acc': accuracy(params, test_batch)
    }
    all_metrics.append(_metrics)

    # Output some metrics if we're at a checkpoint
    if (i % out_freq) == 0:
        print(
            f"eval_epoch: {i+1:d}, ",
            f" loss: {_metrics['test_loss']:.4f}, ",
            f" accuracy: {_metrics['test_acc']*100:.2f}"
        )


if __name__ == "__main__":
    assert train_step._cache_size() == 1
    assert float(all_metrics[-1]['train_loss']) < float(all_metrics[0]['train_loss'])
    assert float(all_metrics[-1]['train_acc']) > 0.7
