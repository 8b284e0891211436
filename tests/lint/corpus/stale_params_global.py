"""A training script whose jitted predict closes over module-level params."""

import jax
import jax.numpy as jnp

params = {"w": jnp.zeros((4, 1)), "b": jnp.zeros(1)}


@jax.jit
def predict(x):
    return x @ params["w"] + params["b"]  # expect: JIT201


@jax.jit
def update(p, x, y):
    g = jax.grad(lambda q: jnp.mean((x @ q["w"] + q["b"] - y) ** 2))(p)
    return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g)


if __name__ == "__main__":
    x = jnp.ones((8, 4))
    y = jnp.ones((8, 1))
    for _ in range(100):
        params = update(params, x, y)
    print(predict(x))
