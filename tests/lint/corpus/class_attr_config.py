import jax
import jax.numpy as jnp


class Config:
    lr = 0.1
    momentum = 0.9


@jax.jit
def sgd(p, g):
    return p - Config.lr * g  # expect: JIT201


def set_lr(v):
    Config.lr = v
