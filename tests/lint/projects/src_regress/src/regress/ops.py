import jax.numpy as jnp

from regress import settings


def normalise(x):
    n = x.shape[0]
    if n > 1:  # static: the shape is known at trace time
        x = x - x.mean()
    return x / (jnp.linalg.norm(x) + settings.EPS)


def record(loss):
    settings.HISTORY.append(loss)  # expect: JIT202
    return loss


def count_call(x):
    settings.CALLS.append(x.shape[0])  # expect: JIT202
    return x


def debug_loss(loss):
    print("loss", loss)  # expect: JIT203
    return loss
