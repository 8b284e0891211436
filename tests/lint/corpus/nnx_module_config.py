import dataclasses

import jax.numpy as jnp
from flax import nnx


@dataclasses.dataclass(frozen=True)
class Cfg:
    use_norm: bool = True
    depth: int = 2


class Net(nnx.Module):
    def __init__(self, cfg: Cfg, rngs: nnx.Rngs):
        self.cfg = cfg
        self.layers = [nnx.Linear(8, 8, rngs=rngs) for _ in range(cfg.depth)]
        self.norm = nnx.LayerNorm(8, rngs=rngs)

    def __call__(self, x):
        for i, layer in enumerate(self.layers):
            x = nnx.relu(layer(x))
            if self.cfg.use_norm and i == len(self.layers) - 1:
                x = self.norm(x)
        return x


@nnx.jit
def forward(model, x):
    return model(x)
