"""Item assignment on JAX arrays (immutable) instead of .at[].set()."""

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def set_diag(x, v):
    for i in range(x.shape[0]):
        x[i, i] = v  # expect: JIT501
    return x


@jax.jit
def accumulate(hist, idx):
    hist[idx] += 1  # expect: JIT501
    return hist


def host_counts(labels, num_classes):
    counts = np.zeros(num_classes)
    for l in labels:
        counts[l] += 1
    return counts


def eager_update():
    x = jnp.zeros(5)
    x[0] = 1.0  # expect: JIT501
    return x


@jax.jit
def set_diag_ok(x, v):
    idx = jnp.arange(x.shape[0])
    return x.at[idx, idx].set(v)
