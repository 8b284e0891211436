# source: https://github.com/AnandShegde/bnn-zoo/blob/ba9a88612034433781206f9103dad8e4a4ba120c/notebooks/classification/mnist_classification_mc_dropout.ipynb
#   (a student project comparing BNN baselines; the notebook trains a LeNet with dropout on
#   MNIST and draws 100 MC-dropout passes over rotated digits; last changed in 84b160f)
# observed on jax 0.10.2 CPU: fit defines `@jax.jit def one_step` inside its epoch loop, so the
#   train step is traced and compiled again every epoch (3 compilations for 3 epochs); and each
#   epoch draws the permutation from `rng` and then splits that same `rng` for the first batch's
#   dropout key (JAX's key-reuse checker names that split, and the harness's replay of it). The MC-dropout passes, one
#   PRNGKey(i) per pass under vmap(jit(fn)), are correct.
# gap: per-call-recompile
# (changes: tensorflow.keras's MNIST loader is replaced by a stand-in of 128 random 28x28
#  images with random labels; `from jax.config import config` is spelled `from jax import
#  config`; epochs=10 becomes epochs=2; the probml/latexify, seaborn and matplotlib cells, the
#  pickle dump, tfp, tqdm, pandas and the Fashion-MNIST cells are dropped; the __main__ block
#  runs fit again on a small slice to count compilations and record the keys)
import flax.linen as nn

from flax.core import unfreeze

from flax.training import train_state

import jax
import jax.numpy as jnp
from jax import config
import numpy as np
import optax

from scipy.ndimage import rotate

from functools import partial

config.update("jax_enable_x64", True)


class LeNet(nn.Module):
    @nn.compact
    def __call__(self, x, deterministic):

        # 1 layer
        x = nn.Conv(features=6, kernel_size=(5, 5), name="conv2d_1")(x)
        # x = nn.tanh(x)
        x = nn.relu(x)
        x = nn.avg_pool(x, window_shape=(2, 2))

        # 2 layer
        x = nn.Conv(features=16, kernel_size=(5, 5), name="conv2d_2")(x)
        # x = nn.tanh(x)
        x = nn.relu(x)
        x = nn.avg_pool(x, window_shape=(2, 2))

        # 3 layer
        x = nn.Conv(features=120, kernel_size=(5, 5), name="conv2d_3")(x)
        # x = nn.tanh(x)
        x = nn.relu(x)
        x = nn.avg_pool(x, window_shape=(2, 2))

        x = x.reshape((x.shape[0], -1))  # flatten
        # 4 fully connected layer
        x = nn.Dense(84, name="Dense_1_84")(x)
        # x = nn.tanh(x)
        x = nn.relu(x)
        x = nn.Dropout(rate=0.5, deterministic=deterministic)(x)

        # 5 fully connected layer
        x = nn.Dense(10, name="Dense_2_10")(x)
        # x = nn.softmax(x)

        return x


def get_datasets():
    # stand-in for tfds.mnist.load_data(): random uint8 images and labels
    rs = np.random.RandomState(0)
    X_train, y_train = rs.randint(0, 256, (128, 28, 28)), rs.randint(0, 10, 128)
    x_test, y_test = rs.randint(0, 256, (64, 28, 28)), rs.randint(0, 10, 64)

    X_train = jnp.array(X_train / 255)
    x_test = jnp.array(x_test / 255)

    X_train = X_train[..., jnp.newaxis]
    x_test = x_test[..., jnp.newaxis]

    return [X_train, jnp.array(y_train)], [x_test, jnp.array(y_test)]


def cross_entropy_loss(params, x, y, deterministic, rng=jax.random.PRNGKey(0)):
    labels_onehot = jax.nn.one_hot(y, num_classes=10)
    logits = model.apply(params, x, deterministic=deterministic, rngs={"dropout": rng})
    return (
        jnp.mean(optax.softmax_cross_entropy(logits=logits, labels=labels_onehot)),
        logits,
    )


def fit(params, X, Y, batch_size, learning_rate=0.01, epochs=10, verbose=False):
    # opt = optax.adamw(learning_rate=learning_rate)
    opt = optax.sgd(learning_rate, 0.75)
    opt_state = opt.init(params)

    lg_fn = jax.value_and_grad(cross_entropy_loss, has_aux=True)

    rng, _ = jax.random.split(jax.random.PRNGKey(0))
    losses = []

    train_ds_size = len(X)
    steps_per_epoch = train_ds_size // batch_size

    for i in range(epochs):
        rng, _ = jax.random.split(rng)

        @jax.jit  # expect: JIT301
        def one_step(params, x, y, opt_state, rng):
            (loss_val, logits), grads = lg_fn(params, x, y, False, rng=rng)
            updates, opt_state = opt.update(grads, opt_state, params)
            params = optax.apply_updates(params, updates)
            acc_val = jnp.mean(jnp.argmax(logits, -1) == y)
            return params, opt_state, loss_val, logits, acc_val

        # _ , rng = jax.random.split(rng)
        perms = jax.random.permutation(rng, train_ds_size)
        perms = perms[: steps_per_epoch * batch_size]  # skip incomplete batch
        perms = perms.reshape((steps_per_epoch, batch_size))
        accuracy = []
        losses = []

        for perm in perms:
            rng, _ = jax.random.split(rng)  # expect: JIT502
            x, y = X[perm], Y[perm]
            params, opt_state, loss_val, logits, acc_val = one_step(
                params, x, y, opt_state, rng
            )
            losses.append(loss_val)
            accuracy.append(acc_val)

        # if verbose and i % (epochs/10) == 0:
        print(
            "train epoch: %d, loss: %.4f, accuracy: %.2f"
            % (i, jnp.mean(jnp.array(losses)), jnp.mean(jnp.array(accuracy)))
        )
    return params, losses


train_ds, test_ds = get_datasets()
X_train, y_train = train_ds
x_test, y_test = test_ds

batch = 32
rng = jax.random.PRNGKey(0)
rng, init_rng = jax.random.split(rng)
model = LeNet()
params = model.init(init_rng, jnp.ones([1, 28, 28, 1]), deterministic=True)

params, losses = fit(params, X_train, y_train, batch, learning_rate=0.003, epochs=2)

one_img = x_test[2]
one_img = rotate(one_img, 30, reshape=False)

imgs = jnp.array([rotate(one_img, 5.5 * i, reshape=False) for i in range(12)])

pred = model.apply(
    params, imgs, deterministic=False, rngs={"dropout": jax.random.PRNGKey(0)}
)
jnp.argmax(pred, axis=1)

n_stacks = 100
y_stacks = []
fn = lambda i: model.apply(
    params, imgs, deterministic=False, rngs={"dropout": jax.random.PRNGKey(i)}
)
y_stacks = jax.vmap(jax.jit(fn), in_axes=(0))(jnp.arange(n_stacks))

stacks = y_stacks[:, :, (1, 3, 7)]

mean = stacks.mean(axis=0)
std = stacks.std(axis=0)

soft_stacks = nn.softmax(stacks, axis=-1)

soft_mean = soft_stacks.mean(axis=0)
soft_std = soft_stacks.std(axis=0)


if __name__ == "__main__":
    import logging

    compiles = []

    class _Count(logging.Handler):
        def emit(self, record):
            if record.getMessage().startswith("Finished XLA compilation of jit(one_step)"):
                compiles.append(record.getMessage())

    jax.config.update("jax_log_compiles", True)
    logging.getLogger("jax").addHandler(_Count())
    logging.getLogger("jax").setLevel(logging.WARNING)

    perm_keys, split_keys = [], []
    _permutation, _split = jax.random.permutation, jax.random.split

    def _recording_permutation(key, *a, **kw):
        perm_keys.append(key)
        return _permutation(key, *a, **kw)

    def _recording_split(key, *a, **kw):
        split_keys.append(key)
        return _split(key, *a, **kw)  # tolerate: JIT502

    jax.random.permutation, jax.random.split = _recording_permutation, _recording_split
    try:
        small_params = model.init(init_rng, jnp.ones([1, 28, 28, 1]), deterministic=True)
        fit(small_params, X_train[:64], y_train[:64], batch, learning_rate=0.003, epochs=3)
    finally:
        jax.random.permutation, jax.random.split = _permutation, _split

    # observed: line 110 one_step is jitted afresh in every epoch: 3 epochs, 3 compilations
    # of the same train step (same shapes, same dtypes)
    print("one_step compiled", len(compiles), "times")
    assert len(compiles) == 3, compiles

    # observed: line 126 each epoch's permutation key is the very key the batch loop then
    # splits for the first batch's dropout key
    assert len(perm_keys) == 3
    assert all(any(s is k for s in split_keys) for k in perm_keys)

    # the MC-dropout passes differ (one key per pass)
    assert float(soft_std.max()) > 0.0
    print("ok")
