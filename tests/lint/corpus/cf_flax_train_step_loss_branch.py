"""Flax-style train step that branches on the loss value."""

import jax
import jax.numpy as jnp
import optax
from flax.training import train_state


def cross_entropy(logits, labels):
    one_hot = jax.nn.one_hot(labels, logits.shape[-1])
    return -jnp.mean(jnp.sum(one_hot * jax.nn.log_softmax(logits), axis=-1))


@jax.jit
def train_step(state: train_state.TrainState, batch):
    def loss_fn(params):
        logits = state.apply_fn({"params": params}, batch["image"])
        return cross_entropy(logits, batch["label"]), logits

    (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
    if loss > 10.0:  # expect: JIT101
        grads = jax.tree_util.tree_map(lambda g: g * 0.1, grads)
    state = state.apply_gradients(grads=grads)
    accuracy = jnp.mean(jnp.argmax(logits, -1) == batch["label"])
    return state, {"loss": loss, "accuracy": accuracy}


def create_state(model, rng, lr):
    params = model.init(rng, jnp.ones((1, 28, 28, 1)))["params"]
    return train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.sgd(lr))
