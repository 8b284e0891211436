"""Flax-style train step whose branches depend only on shapes and static config."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("clip_grads",))
def train_step(state, batch, clip_grads=True):
    def loss_fn(params):
        logits = state.apply_fn({"params": params}, batch["image"])
        if logits.ndim == 3:
            logits = logits.mean(axis=1)
        labels = jax.nn.one_hot(batch["label"], logits.shape[-1])
        return -jnp.mean(jnp.sum(labels * jax.nn.log_softmax(logits), axis=-1))

    loss, grads = jax.value_and_grad(loss_fn)(state.params)
    if clip_grads:
        norm = optax_global_norm(grads)
        scale = jnp.where(norm > 1.0, 1.0 / norm, 1.0)
        grads = jax.tree_util.tree_map(lambda g: g * scale, grads)
    if batch["image"].shape[0] > 1:
        loss = loss / 1.0
    return state.apply_gradients(grads=grads), loss


def optax_global_norm(tree):
    leaves = jax.tree_util.tree_leaves(tree)
    return jnp.sqrt(sum(jnp.sum(jnp.square(x)) for x in leaves))
