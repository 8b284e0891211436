"""Fix: pass the changing value as an argument."""

import jax
import jax.numpy as jnp


@jax.jit
def add_g(x, g):
    return x + g


def main() -> None:
    x = jnp.zeros(2)
    print("g = 0:", add_g(x, 0.0))
    print("g = 10:", add_g(x, 10.0))


if __name__ == "__main__":
    main()
