# source: https://github.com/Dhia-naouali/learning-jax/blob/6981398c490505454bb6ac09e793d28df9c4bde2/micro-projects/03_logistic_regression/main.py
#   (a learner's "micro-project" while learning JAX; the file as posted without its final
#   matplotlib plot)
# observed on jax 0.10.2 CPU: runs clean. update is jitted once at module level and reads
#   the module constant learning_rate, which is never rebound; the NamedTuple of params is
#   a pytree, so jax.grad and jax.tree.map return Params; the typed key is split once into
#   four keys and each is consumed once. The 32 updates share one compilation and recover
#   the slope 1.6 and intercept 0.8 of the data. Added: the __main__ block.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp
from typing import NamedTuple

class Params(NamedTuple):
    weight: jnp.ndarray
    bias: jnp.ndarray
    
def init(rng):
    w_key, b_key = jax.random.split(rng)
    w = jax.random.normal(w_key, ())
    b = jax.random.normal(b_key, ())
    return Params(w, b)

def loss(params, x, y):
    y_hat = x * params.weight + params.bias
    return jnp.mean((y - y_hat) ** 2)

learning_rate = 5e-2

@jax.jit
def update(params, x, y):
    grads = jax.grad(loss)(params, x, y)
    return jax.tree.map(
        lambda g, p: p - learning_rate*g,
        grads,
        params
    )


w_ = 1.6
b_ = .8
n = 128

key = jax.random.key(12)
key, params_key, x_key, y_key = jax.random.split(key, 4)

xs = jax.random.normal(x_key, (n, 1))
noise = jax.random.normal(y_key, (n, 1))*0.4
ys = xs * w_ + b_ + noise

params = init(params_key)

for _ in range(32):
    params = update(params, xs, ys)

y_pred = xs * params.weight + params.bias


if __name__ == "__main__":
    assert isinstance(params, Params)
    assert update._cache_size() == 1
    assert abs(float(params.weight) - w_) < 0.3 and abs(float(params.bias) - b_) < 0.3
