import jax
import jax.numpy as jnp


def take_dims(dims, x):
    return jnp.transpose(x, dims)


take_dims_jit = jax.jit(take_dims, static_argnums=(0,))


def use(x):
    a = take_dims_jit((1, 0), x)
    b = take_dims_jit([1, 0], x)  # expect: JIT302
    c = take_dims_jit(list(reversed(range(x.ndim))), x)  # expect: JIT302
    return a, b, c
