"""MNIST training script in the flax-linen style, with a couple of latent jit bugs."""

import argparse
import logging
import time
from functools import partial

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax.training import train_state

log = logging.getLogger("mnist")
NUM_CLASSES = 10
history = []


class CNN(nn.Module):
    dropout: float = 0.1

    @nn.compact
    def __call__(self, x, train: bool = False):
        x = nn.Conv(32, (3, 3))(x)
        x = nn.relu(x)
        x = nn.avg_pool(x, (2, 2), strides=(2, 2))
        x = x.reshape((x.shape[0], -1))
        if self.dropout > 0:
            x = nn.Dropout(self.dropout, deterministic=not train)(x)
        x = nn.Dense(256)(x)
        x = nn.relu(x)
        return nn.Dense(NUM_CLASSES)(x)


def cross_entropy(logits, labels, smoothing=0.0):
    one_hot = jax.nn.one_hot(labels, NUM_CLASSES)
    if smoothing:
        one_hot = optax.smooth_labels(one_hot, smoothing)
    return optax.softmax_cross_entropy(logits, one_hot).mean()


@partial(jax.jit, static_argnames=("smoothing",))
def train_step(state, images, labels, dropout_key, smoothing=0.0):
    def loss_fn(params):
        logits = state.apply_fn(
            {"params": params}, images, train=True, rngs={"dropout": dropout_key}
        )
        return cross_entropy(logits, labels, smoothing), logits

    (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
    state = state.apply_gradients(grads=grads)
    acc = jnp.mean(jnp.argmax(logits, -1) == labels)
    history.append(loss)  # expect: JIT202
    return state, loss, acc


@jax.jit
def eval_step(state, images, labels):
    logits = state.apply_fn({"params": state.params}, images)
    loss = cross_entropy(logits, labels)
    if loss > 5.0:  # expect: JIT101
        log.warning("eval loss exploded")  # expect: JIT203
    return loss, jnp.mean(jnp.argmax(logits, -1) == labels)


def batches(images, labels, batch_size, rng):
    perm = rng.permutation(len(images))
    for i in range(0, len(perm) - batch_size + 1, batch_size):
        idx = perm[i : i + batch_size]
        yield images[idx], labels[idx]


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--smoothing", type=float, default=0.0)
    args = p.parse_args(argv)

    rng = np.random.default_rng(0)
    images = rng.normal(size=(512, 28, 28, 1)).astype(np.float32)
    labels = rng.integers(0, NUM_CLASSES, size=(512,))

    key = jax.random.PRNGKey(0)
    key, init_key = jax.random.split(key)
    model = CNN()
    params = model.init(init_key, jnp.ones((1, 28, 28, 1)))["params"]
    state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(args.lr))

    for epoch in range(args.epochs):
        t0 = time.time()
        for x, y in batches(images, labels, 64, rng):
            key, dkey = jax.random.split(key)
            state, loss, acc = train_step(state, x, y, dkey, smoothing=args.smoothing)
        val_loss, val_acc = eval_step(state, images[:128], labels[:128])
        if val_acc < 0.1:
            log.info("still random at epoch %d", epoch)
        print(f"epoch {epoch} loss={float(loss):.3f} val={float(val_loss):.3f} {time.time() - t0:.1f}s")
    return state


if __name__ == "__main__":
    main()
