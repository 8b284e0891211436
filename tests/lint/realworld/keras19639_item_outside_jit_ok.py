# source: https://github.com/keras-team/keras/issues/19639 (fix suggested by hertschuh, 2024-05-03)
# observed on jax 0.10.2 CPU: runs clean; the output shape is (1, 2, 8, 3)
# gap: other
# stand-in: keras is not installed; keras.Model is replaced by a plain class, and
#   model.compile(jit_compile=False); model.predict(...) by an eager call of call().
# added: imports, __main__ block
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


class CustomModel:  # stand-in for keras.Model
    def __init__(self, name=None):
        super().__init__()
        self.name = name

    @partial(jax.jit, static_argnums=(0, 2, 3))
    def jitted_call(self, x, pos, num_repeats):
        x_slice = x[:, :pos, :, :]
        x_slice = jnp.repeat(x_slice, num_repeats, axis=2)
        return x_slice

    def call(self, inputs, training=True):
        x, pos = inputs
        return self.jitted_call(x, pos.item(), 2)

    def predict(self, inputs):  # stand-in: predict() with jit_compile=False calls call() eagerly
        return self.call(inputs)


if __name__ == "__main__":
    x = np.random.rand(1, 5, 4, 3)
    pos = jnp.array([2])
    model = CustomModel()
    out = model.predict((x, pos))
    assert out.shape == (1, 2, 8, 3)
    print(out.shape)
