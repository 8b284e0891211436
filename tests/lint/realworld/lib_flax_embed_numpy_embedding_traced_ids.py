# source: https://github.com/google/flax/blob/279f80be8793ed2d3932292ca9fc315f533683d2/flax/linen/linear.py
#   (linen Embed before commit a9eeb77 "Fix behavior of Embed when embedding is a numpy
#   array")
# observed on jax 0.10.2 CPU (flax 0.12.8 for Module): with the embedding held as a NumPy
#   array (variables converted with np.asarray) and the ids traced by jax.jit,
#   `self.embedding[inputs]` indexes a NumPy array with a tracer and raises. Added: the
#   module's imports and type aliases, and the __main__ block; attend() is left out.
# gap: types
from dataclasses import field

from typing import (Any, Callable, Iterable, Optional, Tuple, Union)

from flax.linen.module import Module, compact
from flax.linen.initializers import lecun_normal, variance_scaling, zeros

from jax import lax
import jax.numpy as jnp
import numpy as np


PRNGKey = Any
Shape = Iterable[int]
Dtype = Any  # this could be a real type?
Array = Any


default_embed_init = variance_scaling(1.0, 'fan_in', 'normal', out_axis=0)


class Embed(Module):
  """Embedding Module.

  A parameterized function from integers [0, n) to d-dimensional vectors.

  Attributes:
    num_embeddings: number of embeddings.
    features: number of feature dimensions for each embedding.
    dtype: the dtype of the embedding vectors (default: float32).
    embedding_init: embedding initializer.
  """
  num_embeddings: int
  features: int
  dtype: Dtype = jnp.float32
  embedding_init: Callable[[PRNGKey, Shape, Dtype], Array] = default_embed_init

  embedding: Array = field(init=False)

  def setup(self):
    self.embedding = self.param('embedding',
                                self.embedding_init,
                                (self.num_embeddings, self.features),
                                self.dtype)

  def __call__(self, inputs):
    """Embeds the inputs along the last dimension.

    Args:
      inputs: input data, all dimensions are considered batch dimensions.

    Returns:
      Output which is embedded input data.  The output shape follows the input,
      with an additional `features` dimension appended.
    """
    if not jnp.issubdtype(inputs.dtype, jnp.integer):
      raise ValueError('Input type must be an integer or unsigned integer.')
    return self.embedding[inputs]  # expect: JIT402


if __name__ == "__main__":
    import jax

    model = Embed(num_embeddings=10, features=4)
    ids = jnp.array([1, 2, 3])
    variables = model.init(jax.random.PRNGKey(0), ids)
    np_variables = jax.tree_util.tree_map(np.asarray, variables)  # e.g. restored from a checkpoint
    print(jax.jit(lambda ids: model.apply(np_variables, ids))(ids))
