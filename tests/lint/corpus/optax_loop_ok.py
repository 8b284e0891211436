import jax
import jax.numpy as jnp
import optax


def make_step(optimizer):
    @jax.jit
    def step(params, state, batch):
        loss, grads = jax.value_and_grad(lambda p: jnp.mean((batch @ p) ** 2))(params)
        updates, state = optimizer.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    return step


def train(params, batches, lr=1e-3):
    opt = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(lr))
    state = opt.init(params)
    step = make_step(opt)
    losses = []
    for batch in batches:
        params, state, loss = step(params, state, batch)
        losses.append(loss)
    return params, losses
