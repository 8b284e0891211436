import flax.linen as nn
import jax.numpy as jnp


class Encoder(nn.Module):
    hidden: int

    @nn.jit
    @nn.compact
    def __call__(self, x):
        h = nn.Dense(self.hidden)(x)
        if h.mean() > 0:  # expect: JIT101
            h = nn.relu(h)
        print("encoder hidden", h)  # expect: JIT203
        return h


JitDecoder = nn.jit(nn.Dense)
