import jax
import jax.numpy as jnp


def repeat_apply(n, x):
    for _ in range(n):
        x = jnp.sin(x)
    return x


repeat_apply_jit = jax.jit(repeat_apply, static_argnums=[0])


def count_down(x, n):
    while n > 0:  # expect: JIT102
        x = x * 2
        n = n - 1
    return x


out = jax.jit(count_down, static_argnames=("x",))(1.0, 3)
ok = jax.jit(count_down, static_argnames=("n",))(jnp.ones(2), n=3)
