import jax
import jax.numpy as jnp


def smooth_l1(pred, target):
    diff = pred - target
    if jnp.abs(diff).max() < 1.0:  # expect: JIT101
        return jnp.mean(0.5 * diff**2)
    return jnp.mean(jnp.abs(diff) - 0.5)


@jax.jit
def update(params, x, y, lr):
    grads = jax.grad(lambda p: smooth_l1(x @ p, y))(params)
    return params - lr * grads
