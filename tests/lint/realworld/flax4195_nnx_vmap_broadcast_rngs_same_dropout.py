# source: https://github.com/google/flax/issues/4195
# observed on jax 0.10.2 CPU: with flax 0.12.8, `nnx.vmap(inference_fn, in_axes=(None, 0))`
#   broadcasts the model, and with it the Rngs its Dropout draws from, so every row of the
#   batch gets the same dropout mask (the reporter: "stochastic functions will have the same
#   behavior across the batch"). Added: the imports, a stand-in `model` (a Linear layer and a
#   Dropout, as the report elides it) and the batch `xs`; the report's `model(input)` calls
#   the model on the builtin `input`, spelled `model(x)` here.
# gap: other
import jax.numpy as jnp
from flax import nnx


class Model(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.linear = nnx.Linear(4, 64, rngs=rngs)
        self.dropout = nnx.Dropout(0.5, rngs=rngs)

    def __call__(self, x):
        return self.dropout(self.linear(x))


model = Model(nnx.Rngs(0))
xs = jnp.ones((3, 4))


def inference_fn(model, x):
	y = model(x)
	return y

ys = nnx.vmap(inference_fn, in_axes=(None, 0))(model, xs)  # expect: JIT502


if __name__ == "__main__":
    # observed: line 30 draws one dropout mask for the whole batch: identical inputs give identical rows
    masks = ys == 0
    assert bool(masks.any()), "dropout dropped nothing"
    assert bool((masks[0] == masks[1]).all() and (masks[1] == masks[2]).all()), masks
