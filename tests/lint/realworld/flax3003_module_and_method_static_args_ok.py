# source: https://github.com/google/flax/issues/3003 (the maintainer's answer: "If `model` is
#   hashable then you can pass it directly to `jit`" as a static argument, with the method)
# observed on jax 0.10.2 CPU: with flax 0.12.8, runs clean: the linen module and the unbound
#   method are hashable static arguments, `x` is traced, and a second call with another `x`
#   of the same shape reuses the compiled step. Added as stand-ins for what the answer elides
#   (`model = ...`, `model.apply(..., x, ...)` and the rest of the step): the imports, a
#   two-method `Model`, its `variables` from `init`, and a body that returns `y`.
# gap: static-hashability
from functools import partial

import jax
import jax.numpy as jnp
import flax.linen as nn


class Model(nn.Module):
    features: int = 3

    @nn.compact
    def __call__(self, x):
        return nn.Dense(self.features)(x)

    def some_method(self, x):
        return jnp.tanh(self(x))


model = Model()
variables = model.init(jax.random.key(0), jnp.ones((2, 4)))


@partial(jax.jit, static_argnums=(0, 1))
def train_step(model, some_method, x):
   y = model.apply(variables, x, method=some_method)
   return y


if __name__ == "__main__":
    y1 = train_step(model, Model.some_method, jnp.ones((2, 4)))
    y2 = train_step(model, Model.some_method, jnp.zeros((2, 4)))
    assert y1.shape == (2, 3) and y2.shape == (2, 3)
    assert train_step._cache_size() == 1
