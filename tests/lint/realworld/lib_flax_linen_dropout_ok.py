# source: https://github.com/google/flax/blob/v0.12.8/flax/linen/stochastic.py
#   (Dropout, flax 0.12.8 as released; docstrings shortened)
# observed on jax 0.10.2 CPU: runs clean when the model is applied under jax.jit with
#   `train` static: `self.rate` is a dataclass field and `deterministic` a Python bool,
#   so both `if` statements branch on Python values; the random mask goes through
#   lax.select.
# gap: exemption-vs-JAX
from collections.abc import Sequence
from functools import partial

import jax
import jax.numpy as jnp
from jax import lax, random

import flax.linen as nn
from flax.linen.module import Module, compact, merge_param
from flax.typing import PRNGKey


class Dropout(Module):
  """Create a dropout layer."""

  rate: float
  broadcast_dims: Sequence[int] = ()
  deterministic: bool | None = None
  rng_collection: str = 'dropout'

  @compact
  def __call__(
    self,
    inputs,
    deterministic: bool | None = None,
    rng: PRNGKey | None = None,
  ):
    """Applies a random dropout mask to the input."""
    deterministic = merge_param(
      'deterministic', self.deterministic, deterministic
    )

    if (self.rate == 0.0) or deterministic:
      return inputs

    # Prevent gradient NaNs in 1.0 edge-case.
    if self.rate == 1.0:
      return jnp.zeros_like(inputs)

    keep_prob = 1.0 - self.rate
    if rng is None:
      rng = self.make_rng(self.rng_collection)
    broadcast_shape = list(inputs.shape)
    for dim in self.broadcast_dims:
      broadcast_shape[dim] = 1
    mask = random.bernoulli(rng, p=keep_prob, shape=broadcast_shape)
    mask = jnp.broadcast_to(mask, inputs.shape)
    return lax.select(mask, inputs / keep_prob, jnp.zeros_like(inputs))


if __name__ == "__main__":
    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x, train):
            x = nn.Dense(4)(x)
            x = Dropout(0.5, deterministic=not train)(x)
            return x

    model = MLP()
    x = jnp.ones((1, 3))
    variables = model.init(jax.random.key(0), x, train=False)

    @partial(jax.jit, static_argnames="train")
    def apply(variables, x, key, train):
        return model.apply(variables, x, train=train, rngs={"dropout": key})

    a = apply(variables, x, jax.random.key(1), train=False)
    b = apply(variables, x, jax.random.key(1), train=True)
    assert a.shape == b.shape == (1, 4)
    assert bool(((b == 0) | jnp.isclose(b, 2 * a)).all())
