# source: https://github.com/blackjax-devs/sampling-book/blob/4519a1ac8a682ee46ec8393c38dcd55d313d0f83/book/models/mlp.md
#   (the notebook's code cells up to the SGLD warmup loop; the MNIST download through
#   HuggingFace `datasets` is replaced by random uint8 images and labels of the same shapes,
#   2048 training and 256 test examples; the fastprogress bar is replaced by `range` and its
#   comment line dropped; the plotting cells and the later cells are left out)
# observed on jax 0.10.2 CPU with blackjax 1.7.1 and flax 0.12.8: `batch_data` draws the
#   minibatch indices from `rng_key` and then, at the next batch, splits that same
#   `rng_key`: with jax_debug_key_reuse on (the notebook uses typed keys) the second
#   `next(batches)` raises KeyReuseError at the split. The per-step `jax.jit(sgld.step)` in
#   the loop traces once (the same function object each time).
# gap: other
# unverifiable: needs blackjax, which the test extra does not install (verified when collected, on jax 0.10.2 with blackjax installed)
import jax

from datetime import date

rng_key = jax.random.key(int(date.today().strftime("%Y%m%d")))

import numpy as np

_data_rng = np.random.default_rng(0)  # stand-in for load_dataset("mnist")
X_train = _data_rng.integers(0, 256, size=(2048, 28, 28), dtype=np.uint8)
y_train = _data_rng.integers(0, 10, size=2048)
X_test = _data_rng.integers(0, 256, size=(256, 28, 28), dtype=np.uint8)
y_test = _data_rng.integers(0, 10, size=256)

import jax.numpy as jnp


def one_hot_encode(x, k):
    "Create a one-hot encoding of x of size k."
    return jnp.array(x[:, None] == jnp.arange(k), dtype=jnp.float32)


@jax.jit
def prepare_data(X, y, num_categories=10):
    y = one_hot_encode(y, num_categories)

    num_examples = X.shape[0]
    num_pixels = 28 * 28
    X = X.reshape(num_examples, num_pixels)
    X = X / 255.0

    return X, y, num_examples


def batch_data(rng_key, data, batch_size, data_size):
    """Return an iterator over batches of data."""
    while True:
        _, rng_key = jax.random.split(rng_key)  # expect: JIT502
        idx = jax.random.choice(
            key=rng_key, a=jnp.arange(data_size), shape=(batch_size,)
        )
        minibatch = tuple(elem[idx] for elem in data)
        yield minibatch


X_train, y_train, N_train = prepare_data(X_train, y_train)
X_test, y_test, N_test = prepare_data(X_test, y_test)

import flax.linen as nn
import jax.scipy.stats as stats


class NN(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Dense(features=500)(x)
        x = nn.relu(x)
        x = nn.Dense(features=10)(x)
        return nn.log_softmax(x)


model = NN()


def logprior_fn(params):
    """Compute the value of the log-prior density function."""
    leaves, _ = jax.tree.flatten(params)
    flat_params = jnp.concatenate([jnp.ravel(a) for a in leaves])
    return jnp.sum(stats.norm.logpdf(flat_params))


def loglikelihood_fn(params, data):
    """Categorical log-likelihood"""
    X, y = data
    return jnp.sum(y * model.apply(params, X))


@jax.jit
def compute_accuracy(params, X, y):
    """Compute the accuracy of the model.

    To make predictions we take the number that corresponds to the highest
    probability value, which corresponds to a 1-0 loss.

    """
    target_class = jnp.argmax(y, axis=1)
    predicted_class = jnp.argmax(model.apply(params, X), axis=1)
    return jnp.mean(predicted_class == target_class)

import blackjax
from blackjax.sgmcmc.gradients import grad_estimator


data_size = len(y_train)
batch_size = 512
step_size = 4.5e-5

num_warmup = (data_size // batch_size) * 20
num_samples = 1000

rng_key, batch_key, init_key = jax.random.split(rng_key, 3)
# Batch the data
batches = batch_data(batch_key, (X_train, y_train), batch_size, data_size)

# Set the initial state
state = jax.jit(model.init)(init_key, jnp.ones(X_train.shape[-1]))

# Build the SGLD kernel with a constant learning rate
grad_fn = grad_estimator(logprior_fn, loglikelihood_fn, data_size)
sgld = blackjax.sgld(grad_fn)

# Sample from the posterior
accuracies = []
steps = []

pb = range(num_warmup)
for step in pb:
    rng_key, sample_key = jax.random.split(rng_key)
    batch = next(batches)
    state = jax.jit(sgld.step)(sample_key, state, batch, step_size)
    if step % 100 == 0:
        accuracy = compute_accuracy(state, X_test, y_test)
        accuracies.append(accuracy)
        steps.append(step)


if __name__ == "__main__":
    import traceback

    jax.config.update("jax_debug_key_reuse", True)
    check = batch_data(jax.random.key(0), (X_train, y_train), batch_size, data_size)
    next(check)
    try:
        next(check)
    except jax.errors.KeyReuseError as e:
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
        # observed: line 49 splits the key the previous batch's choice consumed
        assert frames[-1].lineno == 49, frames
    else:
        raise AssertionError("expected KeyReuseError")
