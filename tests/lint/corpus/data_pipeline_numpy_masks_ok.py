"""Host-side data preparation with NumPy masks and in-place writes (no tracing)."""

import jax
import jax.numpy as jnp
import numpy as np


def filter_valid(images, labels):
    keep = labels >= 0
    images, labels = images[keep], labels[keep]
    order = np.argsort(labels)
    return images[order], labels[order]


def one_hot_np(labels, n):
    out = np.zeros((labels.shape[0], n), np.float32)
    out[np.arange(labels.shape[0]), labels] = 1.0
    return out


def to_device(batch):
    uniq = np.unique(batch["label"])
    idx = np.nonzero(batch["label"] > 0)[0]
    return {k: jnp.asarray(v) for k, v in batch.items()}, uniq, idx


@jax.jit
def normalize(images):
    return (images - images.mean()) / (images.std() + 1e-6)
