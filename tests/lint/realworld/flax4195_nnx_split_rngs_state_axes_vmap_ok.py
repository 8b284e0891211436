# source: https://github.com/google/flax/issues/4195 (the maintainer's answer: vectorize the
#   RngState with nnx.StateAxes and split it with nnx.split_rngs)
# observed on jax 0.10.2 CPU: with flax 0.12.8, runs clean under nnx.vmap and each row of the
#   batch gets its own dropout mask. Added: the imports, a stand-in `model` (a Linear layer and
#   a Dropout, as the thread elides it), the batch `xs` and `splits=3` for its size (the
#   answer writes `<num_splits>`); `RngState` is spelled `nnx.RngState` and the answer's
#   `model(input)` is `model(x)`.
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

state_axes = nnx.StateAxes({nnx.RngState: 0, ...: None}) # vectorize RngState, broadcast the rest

@nnx.split_rngs(splits=3)
@nnx.vmap(in_axes=(state_axes, 0))
def inference_fn(model, x):
	y = model(x)
	return y


if __name__ == "__main__":
    ys = inference_fn(model, xs)
    masks = ys == 0
    assert not bool((masks[0] == masks[1]).all() and (masks[1] == masks[2]).all()), masks
    ys2 = inference_fn(model, xs)
    assert not bool(((ys2 == 0) == masks).all())
