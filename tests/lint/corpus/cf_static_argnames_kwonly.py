import jax
import jax.numpy as jnp


def attention(q, k, v, *, causal, mask=None):
    logits = q @ k.T / jnp.sqrt(q.shape[-1])
    if causal:
        n = logits.shape[0]
        logits = jnp.where(jnp.tril(jnp.ones((n, n), bool)), logits, -1e9)
    if mask is not None:
        logits = jnp.where(mask, logits, -1e9)
    return jax.nn.softmax(logits) @ v


attention_jit = jax.jit(attention, static_argnames=["causal"])


def attention_with_temp(q, k, v, temperature):
    logits = q @ k.T
    if temperature != 1.0:  # expect: JIT101
        logits = logits / temperature
    return jax.nn.softmax(logits) @ v


attention_temp_jit = jax.jit(attention_with_temp)
