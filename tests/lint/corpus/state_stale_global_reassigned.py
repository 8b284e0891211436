"""A module global read inside jit and rebound later: the jitted code keeps the old value."""

import jax
import jax.numpy as jnp

g = 0.0
learning_rate = 0.1
EPS = 1e-8


@jax.jit
def f(x):
    return x + g  # expect: JIT201


@jax.jit
def sgd(p, grad):
    return p - learning_rate * grad / (jnp.linalg.norm(grad) + EPS)  # expect: JIT201


def set_lr(value):
    global learning_rate
    learning_rate = value


print(f(jnp.arange(3.0)))
g = 10.0
print(f(jnp.arange(3.0)))
