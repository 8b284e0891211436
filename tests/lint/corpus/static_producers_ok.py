"""Values derived from static attributes stay static through arithmetic and helpers."""

import math

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def attention_scale(q, k):
    d = q.shape[-1]
    scale = 1.0 / math.sqrt(d)
    n_blocks = math.ceil(q.shape[0] / 64)
    if n_blocks > 1 and d % 8 == 0:
        q = q * 1.0
    ndim = jnp.ndim(q)
    if ndim == 3:
        q = q.reshape(-1, d)
    if np.prod(q.shape) > 1_000_000:
        q = q.astype(jnp.bfloat16)
    if jnp.shape(k)[0] != q.shape[0]:
        k = k[: q.shape[0]]
    if q.size == 0 or k.dtype == jnp.int32:
        return jnp.zeros(())
    return (q @ k.T) * scale


@jax.jit
def pad_batch(x):
    rem = x.shape[0] % 8
    pad = 0 if rem == 0 else 8 - rem
    while pad >= 8:
        pad -= 8
    return jnp.pad(x, ((0, pad), (0, 0)))
