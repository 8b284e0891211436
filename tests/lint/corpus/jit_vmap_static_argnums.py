"""Static arguments of jax.jit(jax.vmap(f)) map onto f's own positions."""

import jax
import jax.numpy as jnp


def decode_one(tokens, max_len, temperature):
    out = jnp.zeros((max_len,), tokens.dtype)
    for i in range(max_len):
        out = out.at[i].set(tokens[i % tokens.shape[0]])
    if temperature > 0:  # expect: JIT101
        out = out * 1
    return out


decode_batch = jax.jit(jax.vmap(decode_one, in_axes=(0, None, None)), static_argnums=(1,))


def run(tokens):
    return decode_batch(tokens, 16, 0.7)
