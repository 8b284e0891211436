import jax
import jax.numpy as jnp


@jax.jit
def valid_tokens(tokens, pad_id):
    return tokens[tokens != pad_id]  # expect: JIT403


@jax.jit
def valid_count(tokens, pad_id):
    return jnp.sum(tokens != pad_id)


@jax.jit
def flat_nonzero(x):
    return jnp.flatnonzero(x)  # expect: JIT403


@jax.jit
def topk_idx(x):
    return jnp.argwhere(x > 0, size=4, fill_value=0)


@jax.jit
def static_mask(x):
    keep = jnp.array([True, False, True])
    return jnp.where(keep, x, 0.0)
