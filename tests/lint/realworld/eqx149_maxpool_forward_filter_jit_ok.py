# source: https://github.com/patrick-kidger/equinox/issues/149 (the reporter's script with the
#   decorator it marks "#works" in place of `@jax.jit  #breaks`; the maintainer: "This
#   intended, and is actually pretty much the purpose of filtering")
# observed on jax 0.10.2 CPU (equinox 0.13.8): runs clean and prints (1, 3, 111, 111).
#   `eqx.filter_jit` traces only the arrays of `model`, keeping MaxPool2d's non-array
#   leaves static; with `@jax.jit` the same call still raises TypeError ("not a valid JAX
#   type"). Current spelling: `from equinox.custom_types import Array` (removed) is
#   `from jaxtyping import Array`. Added: the __main__ block.
# gap: exemption-vs-JAX
from jaxtyping import Array

import jax
import jax.random as jrandom
import equinox as eqx
import equinox.nn as nn


class Net(eqx.Module):
  maxp: eqx.Module

  def __init__(self):
      super().__init__()
      self.maxp = nn.MaxPool2d(kernel_size=3, stride=2)

  def __call__(self, x: Array) -> Array:
      return self.maxp(x)


# @jax.jit  #breaks
@eqx.filter_jit  #works
def forward(model, x):
    return jax.vmap(model)(x)

model = Net()
random_image = jax.random.uniform(key=jrandom.PRNGKey(0), shape=(1, 3, 224, 224))
output = forward(model, random_image)
print(output.shape)


if __name__ == "__main__":
    assert output.shape == (1, 3, 111, 111), output.shape
    assert forward(model, random_image * 2).shape == (1, 3, 111, 111)
