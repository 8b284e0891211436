import jax
import jax.numpy as jnp

jit = jax.jit


@jit
def clip_norm(g, max_norm):
    n = jnp.linalg.norm(g)
    if n > max_norm:  # expect: JIT101
        g = g * max_norm / n
    return g
