import jax
import jax.numpy as jnp


@jax.jit
def positive_log(x):
    assert x.min() > 0  # expect: JIT103
    return jnp.log(x)


@jax.jit
def is_zero(x):
    return not jnp.any(x)  # expect: JIT103


@jax.jit
def is_matrix(x):
    return not (x.ndim != 2)
