import jax
import jax.numpy as jnp

SCALE = 1.0


@jax.jit
def scale(x):
    return x * SCALE  # expect: JIT201


def main():
    global SCALE
    for s in (1.0, 2.0):
        SCALE = s
        print(scale(jnp.ones(2)))
