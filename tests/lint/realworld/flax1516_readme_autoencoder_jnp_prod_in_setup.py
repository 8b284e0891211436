# source: https://github.com/google/flax/pull/1516 (the README's AutoEncoder example before
#   the fix, README.md at 1a117d0aa0b9491d0abbd77e003ffe7de508cc49, with the README's MLP it
#   builds on; the PR: "Do not call `jnp` on shapes in AutoEncoder example. Otherwise can't
#   jit/abstract-eval `model.apply`". Added: the imports of `Sequence` and the last line,
#   which jits model.apply as the PR describes)
# observed on jax 0.10.2 CPU (flax 0.12.8): the README's own eager calls run, but under
#   jax.jit the module's setup runs in the trace, so `jnp.prod(jnp.asarray(self.input_shape))`
#   is a tracer; it becomes the last decoder layer's feature count, and nn.Dense raises
#   TypeError "Shapes must be 1D sequences of concrete values of integer type" when it
#   makes its kernel.
# gap: omnistaging
from typing import Sequence

import jax
import jax.numpy as jnp
import flax.linen as nn

class MLP(nn.Module):
  features: Sequence[int]

  @nn.compact
  def __call__(self, x):
    for feat in self.features[:-1]:
      x = nn.relu(nn.Dense(feat)(x))
    x = nn.Dense(self.features[-1])(x)  # expect: JIT404
    return x

class AutoEncoder(nn.Module):
  encoder_widths: Sequence[int]
  decoder_widths: Sequence[int]
  input_shape: Sequence[int]

  def setup(self):
    input_dim = jnp.prod(jnp.asarray(self.input_shape))
    self.encoder = MLP(self.encoder_widths)
    self.decoder = MLP(self.decoder_widths + (input_dim,))

  def __call__(self, x):
    return self.decode(self.encode(x))

  def encode(self, x):
    assert x.shape[1:] == self.input_shape
    return self.encoder(jnp.reshape(x, (x.shape[0], -1)))

  def decode(self, z):
    z = self.decoder(z)
    x = nn.sigmoid(z)
    x = jnp.reshape(x, (x.shape[0],) + self.input_shape)
    return x

model = AutoEncoder(encoder_widths=[20, 10, 5],
                    decoder_widths=[5, 10, 20],
                    input_shape=(12,))
batch = jnp.ones((16, 12))
variables = model.init(jax.random.PRNGKey(0), batch)
encoded = model.apply(variables, batch, method=model.encode)
decoded = model.apply(variables, encoded, method=model.decode)

jax.jit(lambda variables, z: model.apply(variables, z, method=model.decode))(variables, encoded)
