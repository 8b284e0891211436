"""Equinox model and training step compiled with eqx.filter_jit."""

import equinox as eqx
import jax
import jax.numpy as jnp
import optax


class MLP(eqx.Module):
    layers: list
    dropout_rate: float = eqx.field(static=True, default=0.1)

    def __init__(self, key, sizes):
        keys = jax.random.split(key, len(sizes) - 1)
        self.layers = [eqx.nn.Linear(a, b, key=k) for a, b, k in zip(sizes[:-1], sizes[1:], keys)]

    def __call__(self, x):
        for layer in self.layers[:-1]:
            x = jax.nn.relu(layer(x))
        return self.layers[-1](x)


@eqx.filter_jit
def train_step(model, opt_state, x, y, optim):
    def loss_fn(m):
        pred = jax.vmap(m)(x)
        return jnp.mean((pred - y) ** 2)

    loss, grads = eqx.filter_value_and_grad(loss_fn)(model)
    if jnp.isnan(loss):  # expect: JIT101
        return model, opt_state, loss
    updates, opt_state = optim.update(grads, opt_state, eqx.filter(model, eqx.is_array))
    model = eqx.apply_updates(model, updates)
    return model, opt_state, loss


def fit(model, data, steps):
    optim = optax.adamw(3e-4)
    opt_state = optim.init(eqx.filter(model, eqx.is_array))
    for step, (x, y) in zip(range(steps), data):
        model, opt_state, loss = train_step(model, opt_state, x, y, optim)
        if step % 100 == 0:
            print(step, loss.item())
    return model
