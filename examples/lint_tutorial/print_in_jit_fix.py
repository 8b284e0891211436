"""Fix: `jax.debug.print` prints the runtime value on every call."""

import jax
import jax.numpy as jnp


@jax.jit
def log2_with_print(x):
    jax.debug.print("printed x: {}", x)
    ln_x = jnp.log(x)
    ln_2 = jnp.log(2.0)
    return ln_x / ln_2


def main() -> None:
    log2_with_print(3.0)
    log2_with_print(4.0).block_until_ready()


if __name__ == "__main__":
    main()
