"""Training step with logging calls inside the traced function."""

import logging

import jax
import jax.numpy as jnp
import optax

logger = logging.getLogger(__name__)
optimizer = optax.adam(1e-3)


@jax.jit
def train_step(params, opt_state, x, y):
    def loss_fn(p):
        return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    logger.info("loss=%s", loss)  # expect: JIT203
    updates, opt_state = optimizer.update(grads, opt_state, params)
    params = optax.apply_updates(params, updates)
    logging.debug("updated params")  # expect: JIT203
    return params, opt_state, loss


def fit(params, batches):
    opt_state = optimizer.init(params)
    for step, (x, y) in enumerate(batches):
        params, opt_state, loss = train_step(params, opt_state, x, y)
        if step % 100 == 0:
            logger.info("step %d loss %.4f", step, float(loss))
    return params
