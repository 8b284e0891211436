"""Bug: a `while` loop conditioned on traced values (jitlint: JIT102).

From the JAX tutorial: `jax.jit(g)(10, 20)` raises because `i < n` depends on the traced `n`.
"""

import jax


def g(x, n):
    i = 0
    while i < n:
        i += 1
    return x + i


def main() -> None:
    try:
        jax.jit(g)(10, 20)
    except jax.errors.TracerBoolConversionError as err:
        print("jax.jit(g)(10, 20) raised", type(err).__name__)


if __name__ == "__main__":
    main()
