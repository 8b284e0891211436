# source: https://github.com/keras-team/keras/issues/19639
# observed on jax 0.10.2 CPU: ConcretizationTypeError at the labelled pos.item() in the jitted call()
# gap: other
# stand-in: keras is not installed; keras.Model is replaced by a plain class, and
#   model.predict() (which jit-compiles call() on the JAX backend) by jax.jit(model.call).
# added: imports, __main__ block
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


@partial(jax.jit, static_argnums=(1, 2))
def get_array_slice_and_repeat(x, pos, num_repeats):
    x_slice = x[:, :pos, :, :]
    x_slice = jnp.repeat(x_slice, num_repeats, axis=2)
    return x_slice


class CustomModel:  # stand-in for keras.Model
    def __init__(self, name=None):
        super().__init__()
        self.name = name if name is not None else "custom_model"

    def call(self, inputs, training=True):
        x, pos = inputs
        x = get_array_slice_and_repeat(x, pos.item(), 2)  # expect: JIT401
        return x

    def predict(self, inputs):  # stand-in: keras predict() runs call() under jax.jit
        return jax.jit(self.call)(inputs)


if __name__ == "__main__":
    # This works
    x = jnp.asarray(np.random.rand(1, 5, 4, 3))
    y = get_array_slice_and_repeat(x, 2, 3)

    x = np.random.rand(1, 5, 4, 3)
    pos = jnp.array([2])
    model = CustomModel()
    out = model.predict((x, pos))
