"""Flax linen module whose branches depend on static attributes only."""

import flax.linen as nn
import jax
import jax.numpy as jnp


class MLPBlock(nn.Module):
    features: int
    dropout_rate: float = 0.1
    use_bias: bool = True

    @nn.compact
    def __call__(self, x, *, deterministic: bool):
        y = nn.Dense(self.features, use_bias=self.use_bias)(x)
        y = nn.gelu(y)
        if self.dropout_rate > 0:
            y = nn.Dropout(self.dropout_rate)(y, deterministic=deterministic)
        if x.shape[-1] == self.features:
            y = y + x
        return y


@jax.jit
def apply(params, x):
    return MLPBlock(64).apply({"params": params}, x, deterministic=True)
