import jax
import jax.numpy as jnp


@jax.jit
def zero_bias(params):
    params["b"] = jnp.zeros_like(params["b"])
    return params


@jax.jit
def zero_first(w):
    w[0] = 0  # expect: JIT501
    return w
