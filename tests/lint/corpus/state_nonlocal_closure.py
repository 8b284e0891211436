import jax
import jax.numpy as jnp


def make_tracker():
    history = []
    steps = 0

    @jax.jit
    def step(x):
        nonlocal steps
        steps = steps + 1  # expect: JIT202
        history.append(x.mean())  # expect: JIT202
        return x * 0.9

    return step, history


def make_scaler(scale):
    @jax.jit
    def apply(x):
        if scale > 1.0:
            return x * scale
        return x

    return apply
