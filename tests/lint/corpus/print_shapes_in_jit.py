import jax
import jax.numpy as jnp


@jax.jit
def attention(q, k, v):
    scores = q @ k.T / jnp.sqrt(q.shape[-1])
    weights = jax.nn.softmax(scores)
    print("attention weights", weights)  # expect: JIT203
    return weights @ v
