"""A TrainState with an optional dynamic-scale field, as in the flax examples."""

from typing import Any

import jax
import jax.numpy as jnp
from flax.training import dynamic_scale as dynamic_scale_lib
from flax.training import train_state


class TrainState(train_state.TrainState):
    dynamic_scale: Any = None
    ema_params: Any = None


@jax.jit
def train_step(state, batch):
    def loss_fn(params):
        logits = state.apply_fn({"params": params}, batch["x"])
        return jnp.mean((logits - batch["y"]) ** 2)

    dynamic_scale = state.dynamic_scale
    if dynamic_scale:
        grad_fn = dynamic_scale.value_and_grad(loss_fn)
        dynamic_scale, is_fin, loss, grads = grad_fn(state.params)
    else:
        loss, grads = jax.value_and_grad(loss_fn)(state.params)
        is_fin = None
    new_state = state.apply_gradients(grads=grads)
    if state.ema_params is not None:
        ema = jax.tree_util.tree_map(lambda e, p: 0.99 * e + 0.01 * p, state.ema_params, new_state.params)
        new_state = new_state.replace(ema_params=ema)
    if state.dynamic_scale:
        new_state = new_state.replace(dynamic_scale=dynamic_scale)
    if state.step > 1000:  # expect: JIT101
        loss = loss * 0.5
    return new_state, loss, is_fin


def make_dynamic_scale(use_fp16):
    return dynamic_scale_lib.DynamicScale() if use_fp16 else None
