# source: https://github.com/google-deepmind/dm-haiku/blob/v0.0.17/haiku/_src/nets/mlp.py
#   (the MLP module as installed with dm-haiku 0.0.17, without the docstrings and the
#   `reverse` method; the file's `class hk` alias to haiku internals is replaced by
#   `import haiku as hk`, as its own comment says to do when forking; the __main__ block
#   applies it under jax.jit with and without dropout)
# observed on jax 0.10.2 CPU: runs clean under jit: `rng is None` and `dropout_rate is not
#   None` test Python values (the key is traced, but `is None` does not convert it), and the
#   layer loop and `i < (num_layers - 1)` count Python ints.
# gap: exemption-vs-JAX
from collections.abc import Callable, Iterable

import haiku as hk
import jax
import jax.numpy as jnp



class MLP(hk.Module):
  """A multi-layer perceptron module."""

  def __init__(
      self,
      output_sizes: Iterable[int],
      w_init: hk.initializers.Initializer | None = None,
      b_init: hk.initializers.Initializer | None = None,
      with_bias: bool = True,
      activation: Callable[[jax.Array], jax.Array] = jax.nn.relu,
      activate_final: bool = False,
      name: str | None = None,
  ):
    if not with_bias and b_init is not None:
      raise ValueError("When with_bias=False b_init must not be set.")

    super().__init__(name=name)
    self.with_bias = with_bias
    self.w_init = w_init
    self.b_init = b_init
    self.activation = activation
    self.activate_final = activate_final
    layers = []
    output_sizes = tuple(output_sizes)
    for index, output_size in enumerate(output_sizes):
      layers.append(hk.Linear(output_size=output_size,
                              w_init=w_init,
                              b_init=b_init,
                              with_bias=with_bias,
                              name="linear_%d" % index))
    self.layers = tuple(layers)
    self.output_size = output_sizes[-1] if output_sizes else None

  def __call__(
      self,
      inputs: jax.Array,
      dropout_rate: float | None = None,
      rng=None,
  ) -> jax.Array:
    if dropout_rate is not None and rng is None:
      raise ValueError("When using dropout an rng key must be passed.")
    elif dropout_rate is None and rng is not None:
      raise ValueError("RNG should only be passed when using dropout.")

    rng = hk.PRNGSequence(rng) if rng is not None else None
    num_layers = len(self.layers)

    out = inputs
    for i, layer in enumerate(self.layers):
      out = layer(out)
      if i < (num_layers - 1) or self.activate_final:
        # Only perform dropout if we are activating the output.
        if dropout_rate is not None:
          out = hk.dropout(next(rng), dropout_rate, out)  # pyrefly: ignore[bad-argument-type]
        out = self.activation(out)

    return out


if __name__ == "__main__":
  def forward(x, rng):
    return MLP([8, 4], activate_final=True)(x, dropout_rate=0.5, rng=rng)

  def forward_eval(x):
    return MLP([8, 4], activate_final=True)(x)

  x = jnp.ones((2, 3))
  f = hk.transform(forward)
  params = f.init(jax.random.key(0), x, jax.random.key(1))
  out = jax.jit(f.apply)(params, None, x, jax.random.key(2))
  assert out.shape == (2, 4)
  g = hk.without_apply_rng(hk.transform(forward_eval))
  assert jax.jit(g.apply)(params, x).shape == (2, 4)
