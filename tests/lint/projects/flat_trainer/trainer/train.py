import jax

from trainer import losses
from trainer.model import clip_loss, clip_loss_fixed, describe, predict


@jax.jit
def step(params, x, y):
    loss = losses.mse(predict(params, x), y) + 1e-3 * losses.l2(params)
    return clip_loss(loss)


@jax.jit
def step_fixed(params, x, y):
    loss = losses.mse(predict(params, x), y)
    if describe(params) == "matrix":
        loss = loss + 1e-3 * losses.l2(params)
    return clip_loss_fixed(loss)


@jax.jit
def logged_step(params, x, y):
    pred = predict(params, x)
    loss = losses.mse(pred, y)
    return loss, losses.as_number(loss), losses.spread(pred)


def evaluate(params, x, y):
    # Not traced: converting the concrete result is fine.
    return losses.as_number(losses.mse(predict(params, x), y))
