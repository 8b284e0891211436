import jax
import jax.numpy as jnp

from . import settings
from .ops import debug_loss, normalise, count_call, record


@jax.jit
def fit_step(w, x, y):
    x = normalise(count_call(x))
    grad = jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
    return w - settings.LEARNING_RATE * grad  # expect: JIT201


@jax.jit
def predict_step(w, x):
    return record(x @ w) * settings.DECAY  # expect: JIT201


@jax.jit
def loss_step(w, x, y):
    return debug_loss(jnp.mean((x @ w - y) ** 2))


def fit_step_fixed(w, x, y, lr):
    return _fit(w, normalise(x), y, lr)


@jax.jit
def _fit(w, x, y, lr):
    grad = jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
    return w - lr * grad
