import jax.numpy as jnp

LEARNING_RATE = 0.1
EPS = 1e-6  # never rebound: reading it under jit is fine
DECAY = 0.5
HISTORY = []
CALLS = []


def set_learning_rate(value):
    global LEARNING_RATE
    LEARNING_RATE = value


def zero_like(x):
    return jnp.zeros_like(x)
