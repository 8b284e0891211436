import flax.linen as nn
import jax
import jax.numpy as jnp


class Block(nn.Module):
    features: int
    train: bool = False

    @nn.compact
    def __call__(self, x):
        x = nn.Dense(self.features)(x)
        if self.train:
            x = nn.Dropout(0.1, deterministic=False)(x)
        x = nn.BatchNorm(use_running_average=not self.train)(x)
        return nn.relu(x)


@jax.jit
def infer(variables, x):
    return Block(32).apply(variables, x)
