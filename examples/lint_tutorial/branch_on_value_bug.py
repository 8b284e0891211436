"""Bug: a Python `if` on the value of a traced argument (jitlint: JIT101).

From the JAX tutorial "Just-in-time compilation": `jax.jit(f)(10)` raises
TracerBoolConversionError because `x > 0` has no concrete value while tracing.
"""

import jax


def f(x):
    if x > 0:
        return x
    else:
        return 2 * x


def main() -> None:
    try:
        jax.jit(f)(10)
    except jax.errors.TracerBoolConversionError as err:
        print("jax.jit(f)(10) raised", type(err).__name__)


if __name__ == "__main__":
    main()
