import jax
import jax.numpy as jnp

_steps_taken = 0


def _bump():
    global _steps_taken
    _steps_taken += 1  # expect: JIT202  # tolerate: JIT201


@jax.jit
def step(x):
    _bump()
    return x + 1


def host_step(x):
    _bump()
    return x
