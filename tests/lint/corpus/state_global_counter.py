import jax
import jax.numpy as jnp

num_calls = 0
last_loss = None


@jax.jit
def loss_fn(pred, y):
    global last_loss
    loss = jnp.mean((pred - y) ** 2)
    last_loss = loss  # expect: JIT202
    return loss


def counted_loss(pred, y):
    global num_calls
    num_calls += 1
    return loss_fn(pred, y)
