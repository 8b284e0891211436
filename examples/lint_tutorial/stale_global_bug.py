"""Bug: a jitted function reads a global that is reassigned later (jitlint: JIT201).

The value of `g` is baked into the compiled code at the first call; rebinding `g` changes
nothing until something forces a retrace.
"""

import jax
import jax.numpy as jnp

g = 0.0


@jax.jit
def add_g(x):
    return x + g


def main() -> None:
    global g
    x = jnp.zeros(2)
    print("g = 0:", add_g(x))
    g = 10.0
    print("g = 10, still sees the old g:", add_g(x))


if __name__ == "__main__":
    main()
