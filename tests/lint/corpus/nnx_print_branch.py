from flax import nnx
import jax.numpy as jnp


class Head(nnx.Module):
    def __init__(self, rngs):
        self.lin = nnx.Linear(4, 2, rngs=rngs)

    def __call__(self, x):
        return self.lin(x)


@nnx.jit
def forward(model, x):
    y = model(x)
    if y.shape[-1] == 2:
        y = y * 1.0
    if (y > 0).all():  # expect: JIT101
        y = -y
    return y
