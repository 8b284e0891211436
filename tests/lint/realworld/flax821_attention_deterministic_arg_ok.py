# source: https://github.com/google/flax/issues/821 (the reporter's module; the current
#   nn.SelfAttention takes the same arguments)
# observed on jax 0.10.2 CPU with flax 0.12: runs clean, also with apply under jax.jit when
#   `deterministic` is static: it is a Python bool, never a traced value.
# gap: exemption-vs-JAX
import functools

import jax
import flax.linen as nn
from jax import lax, random, numpy as jnp


class DummyAttention(nn.Module):
    num_heads: int

    @nn.compact
    def __call__(self, inputs, deterministic):
        inputs = nn.attention.SelfAttention(
            dropout_rate=0.1,
            num_heads=self.num_heads,
            deterministic=deterministic,
        )(inputs)
        return inputs

model = DummyAttention(num_heads=2)

key1, key2 = random.split(random.PRNGKey(0))
x = jnp.ones((1, 8))
params = model.init({"params": key1, "dropout": key2}, x, True)

# train
print(model.apply(params, x, False, rngs={"dropout": key2}))

# eval
print(model.apply(params, x, True))

apply = jax.jit(model.apply, static_argnums=2)
print(apply(params, x, True))
print(apply(params, x, False, rngs={"dropout": key2}))
