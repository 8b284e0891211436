"""Methods decorated with jax.jit, with self marked static."""

from functools import partial

import jax
import jax.numpy as jnp


class Sampler:
    def __init__(self, temperature: float, top_k: int | None = None):
        self.temperature = temperature
        self.top_k = top_k

    @partial(jax.jit, static_argnums=0)
    def sample(self, key, logits):
        if self.top_k is not None:
            vals, _ = jax.lax.top_k(logits, self.top_k)
            logits = jnp.where(logits < vals[..., -1:], -jnp.inf, logits)
        if self.temperature == 0.0:
            return jnp.argmax(logits, axis=-1)
        return jax.random.categorical(key, logits / self.temperature)

    @partial(jax.jit, static_argnums=0)
    def entropy(self, logits):
        p = jax.nn.softmax(logits)
        h = -jnp.sum(p * jnp.log(p + 1e-9))
        if h < 0.5:  # expect: JIT101
            return jnp.zeros_like(h)
        return h
