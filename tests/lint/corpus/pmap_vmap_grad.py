import jax
import jax.numpy as jnp


def per_device(x):
    if x.sum() > 0:  # expect: JIT101
        return x
    return -x


run_all = jax.pmap(per_device)


def loss(w, x):
    if w @ x > 0:  # expect: JIT101
        return (w @ x) ** 2
    return -(w @ x)


per_example_grads = jax.vmap(jax.grad(loss), in_axes=(None, 0))


def loss2(w, x):
    y = w @ x
    return jnp.where(y > 0, y**2, -y)


per_example_grads_ok = jax.vmap(jax.grad(loss2), in_axes=(None, 0))
