"""Driver loops that call already-jitted functions are the intended use."""

import jax
import jax.numpy as jnp
import optax

opt = optax.sgd(0.1)


@jax.jit
def train_step(params, opt_state, batch):
    loss, grads = jax.value_and_grad(lambda p: jnp.mean((batch @ p) ** 2))(params)
    updates, opt_state = opt.update(grads, opt_state)
    return optax.apply_updates(params, updates), opt_state, loss


eval_step = jax.jit(lambda params, batch: jnp.mean(batch @ params))


def fit(params, batches, epochs=10):
    opt_state = opt.init(params)
    best = jnp.inf
    for epoch in range(epochs):
        for batch in batches:
            params, opt_state, loss = train_step(params, opt_state, batch)
        val = eval_step(params, batches[0])
        if val < best:
            best = val
        while float(loss) > 1e3:
            params = params * 0.5
            loss = eval_step(params, batches[0])
        print(f"epoch {epoch}: loss={loss:.3f} val={val:.3f}")
    return params
