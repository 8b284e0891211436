"""A NumPy data pipeline feeding a jitted step: host randomness lives outside jit."""

import random

import jax
import jax.numpy as jnp
import numpy as np

rng = np.random.default_rng(0)


def batches(data, batch_size, shuffle=True):
    idx = np.arange(len(data))
    if shuffle:
        rng.shuffle(idx)
    for start in range(0, len(idx), batch_size):
        chunk = idx[start : start + batch_size]
        if len(chunk) < batch_size:
            break
        yield data[chunk]


def random_crop(img, size):
    i = random.randint(0, img.shape[0] - size)
    j = random.randint(0, img.shape[1] - size)
    return img[i : i + size, j : j + size]


@jax.jit
def step(w, batch):
    return w - 0.01 * jnp.mean(batch, axis=0)


def train(w, data):
    for batch in batches(data, 32):
        batch = np.stack([random_crop(b, 24) for b in batch])
        w = step(w, jnp.asarray(batch))
        if np.random.rand() < 0.01:
            print("checkpoint")
    return w
