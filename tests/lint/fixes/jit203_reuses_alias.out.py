import jax as jx
import jax.numpy as jnp


@jx.jit
def f(x):
    jx.debug.print("x: {}", x)
    return jnp.sin(x)
