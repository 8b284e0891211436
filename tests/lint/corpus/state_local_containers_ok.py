"""Containers built and mutated locally inside traced code are fine."""

import jax
import jax.numpy as jnp


@jax.jit
def multi_head(x, weights):
    outputs = []
    stats = {}
    for i, w in enumerate(weights):
        h = x @ w
        outputs.append(h)
        stats[f"head_{i}"] = h.mean()
    stats.update({"n_heads": len(weights)})
    return jnp.concatenate(outputs, axis=-1), stats


@jax.jit
def pytree_edit(params):
    new = dict(params)
    new["bias"] = params["bias"] * 0.0
    layers = list(params["layers"])
    layers[0] = layers[0] * 2
    new["layers"] = layers
    return new
