import jax
import jax.numpy as jnp


@jax.jit
def train_step(w, x, y):
    loss, g = jax.value_and_grad(lambda v: jnp.mean((x @ v - y) ** 2))(w)
    if jnp.isnan(loss).any():  # expect: JIT101
        g = jnp.zeros_like(g)
    return w - 0.01 * g, loss


def train(w, data):
    for x, y in data:
        w, loss = train_step(w, x, y)
        if jnp.isnan(loss).any():
            raise FloatingPointError("loss is NaN")
    return w
