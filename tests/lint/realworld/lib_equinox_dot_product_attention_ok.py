# source: https://github.com/patrick-kidger/equinox/blob/v0.13.8/equinox/nn/_attention.py
#   (dot_product_attention_weights and dot_product_attention, equinox 0.13.8 as released;
#   `Dropout` imported from equinox.nn instead of the relative import)
# observed on jax 0.10.2 CPU: runs clean under jax.jit, with and without a mask and with a
#   dropout key: `math.sqrt(query.shape[-1])` and the `mask.shape != logits.shape` check
#   read static shapes, and the `is not None` tests are on Python values.
# gap: exemption-vs-JAX
import math
from typing import cast

import jax
import jax.numpy as jnp
from equinox.nn import Dropout
from jaxtyping import Array, Bool, Float, PRNGKeyArray


def dot_product_attention_weights(
    query: Float[Array, "q_seq qk_size"],
    key: Float[Array, "kv_seq qk_size"],
    mask: Bool[Array, "q_seq kv_seq"] | None = None,
) -> Float[Array, "q_seq kv_seq"]:
    query = query / math.sqrt(query.shape[-1])
    logits = jnp.einsum("sd,Sd->sS", query, key)
    if mask is not None:
        if mask.shape != logits.shape:
            raise ValueError(
                f"mask must have shape (query_seq_length, "
                f"kv_seq_length)=({query.shape[0]}, "
                f"{key.shape[0]}). Got {mask.shape}."
            )
        logits = jnp.where(mask, logits, jnp.finfo(logits.dtype).min)
        logits = cast(Array, logits)

    with jax.numpy_dtype_promotion("standard"):
        dtype = jnp.result_type(logits.dtype, jnp.float32)
    weights = jax.nn.softmax(logits.astype(dtype)).astype(logits.dtype)
    return weights


def dot_product_attention(
    query: Float[Array, "q_seq qk_size"],
    key_: Float[Array, "kv_seq qk_size"],
    value: Float[Array, "kv_seq v_size"],
    mask: Bool[Array, "q_seq kv_seq"] | None = None,
    dropout: Dropout | None = None,
    *,
    key: PRNGKeyArray | None = None,
    inference: bool | None = None,
) -> Float[Array, "q_seq v_size"]:
    weights = dot_product_attention_weights(query, key_, mask)
    if dropout is not None:
        weights = dropout(weights, key=key, inference=inference)
    attn = jnp.einsum("sS,Sd->sd", weights, value)
    return attn


if __name__ == "__main__":
    q = jnp.ones((4, 8))
    kv = jnp.arange(48.0).reshape(6, 8) / 48.0
    mask = jnp.tril(jnp.ones((4, 6), bool))
    print(jax.jit(dot_product_attention)(q, kv, kv))
    print(jax.jit(dot_product_attention)(q, kv, kv, mask))
    drop = Dropout(0.5)
    print(jax.jit(lambda q, k, v, key: dot_product_attention(q, k, v, mask, drop, key=key))(
        q, kv, kv, jax.random.key(0)))
