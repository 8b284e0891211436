"""Not a bug: branching on `x.ndim` (a static attribute) under jit.

The tutorial's `log2_if_rank_2` only ever sees one branch per input rank; JAX retraces
for a new rank, which is what the code means.
"""

import jax
import jax.numpy as jnp


def log2_if_rank_2(x):
    if x.ndim == 2:
        ln_x = jnp.log(x)
        ln_2 = jnp.log(2.0)
        return ln_x / ln_2
    else:
        return x


log2_if_rank_2_jit = jax.jit(log2_if_rank_2)


def main() -> None:
    print(log2_if_rank_2_jit(jnp.array([1.0, 2.0, 3.0])))
    print(log2_if_rank_2_jit(jnp.array([[1.0, 2.0], [4.0, 8.0]])))


if __name__ == "__main__":
    main()
