import flax.linen as nn
import jax.numpy as jnp
import numpy as np


class GatedDense(nn.Module):
    features: int
    use_bias: bool = True

    @nn.compact
    def __call__(self, x):
        y = nn.Dense(self.features, use_bias=self.use_bias)(x)
        if self.use_bias:  # a module attribute: static
            y = y + 1.0
        if y.mean() > 0:  # expect: JIT101
            y = nn.relu(y)
        return y


class Normalised(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x):
        y = nn.Dense(self.features)(x)
        return y / np.linalg.norm(y)  # expect: JIT402


class Safe(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x):
        y = nn.Dense(self.features)(x)
        return y / (jnp.linalg.norm(y) + 1e-6)
