"""Flax NNX model with nnx.jit train and eval steps."""

import jax
import jax.numpy as jnp
import optax
from flax import nnx


class CNN(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.conv = nnx.Conv(1, 32, kernel_size=(3, 3), rngs=rngs)
        self.linear = nnx.Linear(32 * 26 * 26, 10, rngs=rngs)

    def __call__(self, x):
        x = nnx.relu(self.conv(x))
        return self.linear(x.reshape(x.shape[0], -1))


def loss_fn(model, batch):
    logits = model(batch["image"])
    loss = optax.softmax_cross_entropy_with_integer_labels(logits, batch["label"]).mean()
    return loss, logits


@nnx.jit
def train_step(model, optimizer, metrics, batch):
    grad_fn = nnx.value_and_grad(loss_fn, has_aux=True)
    (loss, logits), grads = grad_fn(model, batch)
    metrics.update(loss=loss, logits=logits, labels=batch["label"])
    optimizer.update(model, grads)


@nnx.jit
def eval_step(model, metrics, batch):
    loss, logits = loss_fn(model, batch)
    print("eval loss", loss)  # expect: JIT203
    metrics.update(loss=loss, logits=logits, labels=batch["label"])
