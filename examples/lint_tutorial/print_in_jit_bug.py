"""Bug: `print` inside a jitted function (jitlint: JIT203).

From the JAX tutorial's `log2_with_print`: the print runs once, at trace time, and shows a
tracer rather than the value; later calls print nothing.
"""

import jax
import jax.numpy as jnp


@jax.jit
def log2_with_print(x):
    print("printed x:", x)
    ln_x = jnp.log(x)
    ln_2 = jnp.log(2.0)
    return ln_x / ln_2


def main() -> None:
    log2_with_print(3.0)
    log2_with_print(4.0)


if __name__ == "__main__":
    main()
