import jax
import jax.numpy as jnp


def train_scan(params, xs):
    def step(p, x):
        loss = jnp.mean((x @ p) ** 2)
        g = jax.grad(lambda q: jnp.mean((x @ q) ** 2))(p)
        return p - 0.1 * g, float(loss)  # expect: JIT401

    return jax.lax.scan(step, params, xs)
