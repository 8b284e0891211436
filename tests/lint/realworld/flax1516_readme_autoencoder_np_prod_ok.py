# source: https://github.com/google/flax/pull/1516 (the README's AutoEncoder example as the
#   PR fixed it, README.md at ca72d0a910d2f6cf002d0aa7a8a801fbb3d7d5a3: `import numpy as np`
#   and `np.prod(self.input_shape)`, with the README's MLP it builds on. Added: the import of
#   `Sequence` and the __main__ block, which jits model.apply as the PR describes)
# observed on jax 0.10.2 CPU (flax 0.12.8): runs clean eagerly and under jax.jit:
#   np.prod of the static `input_shape` is a Python-side integer even inside the trace.
# gap: omnistaging
from typing import Sequence

import numpy as np

import jax
import jax.numpy as jnp
import flax.linen as nn

class MLP(nn.Module):
  features: Sequence[int]

  @nn.compact
  def __call__(self, x):
    for feat in self.features[:-1]:
      x = nn.relu(nn.Dense(feat)(x))
    x = nn.Dense(self.features[-1])(x)
    return x

class AutoEncoder(nn.Module):
  encoder_widths: Sequence[int]
  decoder_widths: Sequence[int]
  input_shape: Sequence[int]

  def setup(self):
    input_dim = np.prod(self.input_shape)
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


if __name__ == "__main__":
    out = jax.jit(lambda variables, z: model.apply(variables, z, method=model.decode))(
        variables, encoded)
    assert out.shape == (16, 12), out.shape
    print(jax.jit(model.apply)(variables, batch).shape)
