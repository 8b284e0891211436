# source: https://github.com/google/flax/blob/v0.12.8/flax/nnx/nn/stochastic.py
# observed on jax 0.10.2 CPU: flax's NNX Dropout, copied here (docstrings shortened, the `set_view`
#   method left out), runs
#   under nnx.jit: `rate` and `deterministic` are static attributes of the module, so the
#   `if (self.rate == 0.0) or deterministic` test and the loop over `broadcast_dims` read Python
#   values; the key comes from the module's RngStream, whose count nnx.jit carries out of the
#   trace, so two calls of the same compiled function draw different masks. Added: the imports
#   from flax's package and the `__main__` block.
# gap: exemption-vs-JAX
from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
from jax import lax, random

from flax.nnx import rnglib
from flax.nnx.module import Module, first_from
from flax import nnx


class Dropout(Module):
  """Create a dropout layer."""

  def __init__(
    self,
    rate: float,
    *,
    broadcast_dims: Sequence[int] = (),
    deterministic: bool | None = False,
    rng_collection: str = 'dropout',
    rngs: rnglib.Rngs | rnglib.RngStream | None = None,
  ):
    self.rate = rate
    self.broadcast_dims = broadcast_dims
    self.deterministic = deterministic
    self.rng_collection = rng_collection

    if isinstance(rngs, rnglib.Rngs):
      self.rngs = rngs[self.rng_collection].fork()
    elif isinstance(rngs, rnglib.RngStream):
      self.rngs = rngs.fork()
    elif rngs is None:
      self.rngs = nnx.data(None)
    else:
      raise TypeError(
        f'rngs must be a Rngs, RngStream or None, but got {type(rngs)}.'
      )

  def __call__(
    self,
    inputs,
    *,
    deterministic: bool | None = None,
    rngs: rnglib.Rngs | rnglib.RngStream | jax.Array | None = None,
  ) -> jax.Array:
    """Applies a random dropout mask to the input."""
    deterministic = first_from(
      deterministic,
      self.deterministic,
      error_msg=(
          'No `deterministic` argument was provided to Dropout.'
          ' Consider one of the following options:\n\n'
          '1. Pass `deterministic` to the Dropout constructor:\n\n'
          '  self.dropout = nnx.Dropout(..., deterministic=True/False)\n\n'
          '2. Pass `deterministic` to the Dropout __call__:\n\n'
          '  self.dropout(x, deterministic=True/False)\n\n'
          '3. Use `nnx.view` to create a view of the model with a'
          ' specific `deterministic` value:\n\n'
          '  model_view = nnx.view(model, deterministic=True/False)\n'
      ),
    )

    if (self.rate == 0.0) or deterministic:
      return inputs

    # Prevent gradient NaNs in 1.0 edge-case.
    if self.rate == 1.0:
      return jnp.zeros_like(inputs)

    rngs = first_from(  # type: ignore[assignment]
      rngs,
      self.rngs,
      error_msg="""`deterministic` is False, but no `rngs` argument was provided to Dropout
          as either a __call__ argument or class attribute.""",
    )

    if isinstance(rngs, rnglib.Rngs):
      key = rngs[self.rng_collection]()
    elif isinstance(rngs, rnglib.RngStream):
      key = rngs()
    elif isinstance(rngs, jax.Array):
      key = rngs
    else:
      raise TypeError(
        f'rngs must be a Rngs, RngStream or jax.Array, but got {type(rngs)}.'
      )

    keep_prob = 1.0 - self.rate
    broadcast_shape = list(inputs.shape)
    for dim in self.broadcast_dims:
      broadcast_shape[dim] = 1
    mask = random.bernoulli(
      key, p=keep_prob, shape=broadcast_shape, out_sharding=jax.typeof(inputs).sharding
    )
    mask = jnp.broadcast_to(mask, inputs.shape)
    return lax.select(mask, inputs / keep_prob, jnp.zeros_like(inputs))


if __name__ == "__main__":
    class MLP(nnx.Module):
        def __init__(self, rngs):
            self.linear = nnx.Linear(in_features=3, out_features=16, rngs=rngs)
            self.dropout = Dropout(0.5, rngs=rngs)

        def __call__(self, x):
            return self.dropout(self.linear(x))

    model = MLP(rngs=nnx.Rngs(0))
    x = jnp.ones((4, 3))

    @nnx.jit
    def forward(model, x):
        return model(x)

    y1 = forward(model, x)
    y2 = forward(model, x)
    assert not jnp.array_equal(y1 == 0, y2 == 0)  # a fresh mask per call
    model.dropout.deterministic = True
    y3 = forward(model, x)
    assert jnp.allclose(y3, model.linear(x))
    wide = Dropout(0.5, broadcast_dims=(0,), rngs=nnx.Rngs(1))
    z = nnx.jit(lambda m, x: m(x))(wide, jnp.ones((4, 16)))
    assert (z == z[0]).all()  # one mask shared along the broadcast dimension
