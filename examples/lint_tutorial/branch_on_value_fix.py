"""Fix: mark the argument static, or express the branch with jnp.where.

`jax.jit(f, static_argnums=0)` makes the Python branch legal (one compilation per value);
`jnp.where` keeps one compilation for every value.
"""

import jax
import jax.numpy as jnp


def f(x):
    if x > 0:
        return x
    else:
        return 2 * x


f_jit_correct = jax.jit(f, static_argnums=0)


@jax.jit
def f_where(x):
    return jnp.where(x > 0, x, 2 * x)


def main() -> None:
    print(f_jit_correct(10), f_jit_correct(-10))
    print(f_where(10), f_where(-10))


if __name__ == "__main__":
    main()
