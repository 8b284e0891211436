"""A linear-regression training loop, written twice: with a recompiling step, and fixed.

The buggy step recompiles for two reasons that are easy to miss:

* the last batch of an epoch is shorter (100 examples in batches of 32 leave 4), so
  ``batch['x']`` changes shape from f32[32,3] to f32[4,3];
* the learning rate is a static argument, so every new value from the schedule is a
  new compilation.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

BATCH = 32


def make_data(n: int = 100, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3)).astype(np.float32)
    y = x @ np.array([1.0, -2.0, 0.5], np.float32) + 0.1
    return {"x": x, "y": y}


def loss(params, batch):
    pred = batch["x"] @ params["w"] + params["b"]
    err = (pred - batch["y"]) ** 2
    mask = batch.get("mask", jnp.ones_like(err))
    return (err * mask).sum() / mask.sum()


# --- buggy ------------------------------------------------------------------------


@functools.partial(jax.jit, static_argnames="lr")
def buggy_step(params, batch, lr):
    grads = jax.grad(loss)(params, batch)
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)


def buggy_epoch(params, data, lr):
    n = len(data["x"])
    for start in range(0, n, BATCH):
        batch = {k: v[start : start + BATCH] for k, v in data.items()}
        params = buggy_step(params, batch, lr=lr)
    return params


# --- fixed ------------------------------------------------------------------------


@jax.jit
def fixed_step(params, batch, lr):
    grads = jax.grad(loss)(params, batch)
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)


def fixed_epoch(params, data, lr):
    n = len(data["x"])
    for start in range(0, n, BATCH):
        batch = {k: v[start : start + BATCH] for k, v in data.items()}
        size = len(batch["x"])
        # Pad the ragged last batch to the full size; the mask keeps the loss exact.
        pad = BATCH - size
        batch = {k: np.pad(v, [(0, pad)] + [(0, 0)] * (v.ndim - 1)) for k, v in batch.items()}
        batch["mask"] = (np.arange(BATCH) < size).astype(np.float32)
        # A traced float32 learning rate: new values reuse the compiled step.
        params = fixed_step(params, batch, jnp.float32(lr))
    return params


def init_params():
    return {"w": jnp.zeros(3, jnp.float32), "b": jnp.zeros((), jnp.float32)}
