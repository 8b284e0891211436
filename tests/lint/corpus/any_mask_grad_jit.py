import jax
import jax.numpy as jnp


def masked_loss(params, x, y, mask):
    pred = x @ params
    if jnp.any(mask):  # expect: JIT101
        return jnp.sum(mask * (pred - y) ** 2) / jnp.sum(mask)
    return jnp.zeros(())


loss_and_grad = jax.jit(jax.value_and_grad(masked_loss))
