"""Value branches under vmap and checkpoint fail; under grad alone they are legal."""

import jax
import jax.numpy as jnp


def huber(residual, delta=1.0):
    if jnp.abs(residual) < delta:
        return 0.5 * residual**2
    return delta * (jnp.abs(residual) - 0.5 * delta)


huber_grad = jax.grad(huber)


def relu_scalar(x):
    if x > 0:  # expect: JIT101
        return x
    return 0.0


batched_relu = jax.vmap(relu_scalar)


@jax.checkpoint
def block(x, w):
    h = jnp.tanh(x @ w)
    if h.mean() > 0:  # expect: JIT101
        h = h * 2
    return h
