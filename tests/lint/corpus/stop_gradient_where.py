import jax
import jax.numpy as jnp


@jax.jit
def straight_through(x):
    hard = jnp.where(x > 0, 1.0, 0.0)
    return x + jax.lax.stop_gradient(hard - x)


@jax.jit
def cond_select(x):
    return jax.lax.select(x > 0, x, -x)


@jax.jit
def bad_select(x):
    return x if jax.lax.stop_gradient(x).sum() > 0 else -x  # expect: JIT101
