# source: https://github.com/google-deepmind/distrax/blob/f51bffcf9094d269a0be8678762dd2849833c8b7/distrax/_src/distributions/categorical.py
#   (Categorical.__getitem__, with to_batch_shape_index from
#   distrax/_src/distributions/distribution.py at the same commit)
# observed on jax 0.10.2 CPU: indexing a Categorical with Python ints, slices and
#   Ellipsis inside jax.jit runs clean: to_batch_shape_index indexes the NumPy arrays of
#   `np.indices(batch_shape)` (batch_shape is static) with the static index only, and the
#   traced logits are then indexed with the resulting NumPy index arrays.
#   Kept verbatim: to_batch_shape_index, and Categorical's __init__, logits, probs,
#   entropy and __getitem__ with the helpers math.normalize and math.mul_exp (docstrings
#   shortened; `{self.name}` in __init__'s dtype message is spelled out).
#   Stand-ins (distrax, chex and tensorflow_probability are not installed): Categorical
#   derives from `object`, and its batch_shape (Distribution.batch_shape, which takes
#   the shape of an eval_shape'd sample) is the logits' shape without the last axis.
# gap: exemption-vs-JAX
from typing import Any, Optional, Tuple, Union

import jax
from jax import jit
import jax.numpy as jnp
import numpy as np

Array = jax.Array


def normalize(
    *, probs: Optional[Array] = None, logits: Optional[Array] = None) -> Array:
  """Normalize logits (via log_softmax) or probs (ensuring they sum to one)."""
  if logits is None:
    probs = jnp.asarray(probs)
    return probs / probs.sum(axis=-1, keepdims=True)
  else:
    logits = jnp.asarray(logits)
    return jax.nn.log_softmax(logits, axis=-1)


def mul_exp(x: Array, logp: Array) -> Array:
  """Returns `x * exp(logp)` with zero output if `exp(logp)==0`."""
  p = jnp.exp(logp)
  # If p==0, the gradient with respect to logp is zero,
  # so we can replace the possibly non-finite `x` with zero.
  x = jnp.where(p == 0, 0.0, x)
  return x * p


def to_batch_shape_index(
    batch_shape: Tuple[int, ...],
    index,
) -> Tuple[jnp.ndarray, ...]:
  """Utility function that transforms the index to respect the batch shape."""
  try:
    new_index = [x[index] for x in np.indices(batch_shape)]
    return tuple(new_index)
  except IndexError as e:
    raise IndexError(f'Batch shape `{batch_shape}` not compatible with index '
                     f'`{index}`.') from e


class Categorical:
  """Categorical distribution."""

  def __init__(self,
               logits: Optional[Array] = None,
               probs: Optional[Array] = None,
               dtype: Union[jnp.dtype, type[Any]] = int):
    """Initializes a Categorical distribution."""
    super().__init__()
    if (logits is None) == (probs is None):
      raise ValueError(
          f'One and exactly one of `logits` and `probs` should be `None`, '
          f'but `logits` is {logits} and `probs` is {probs}.')
    if not (jnp.issubdtype(dtype, jnp.integer) or
            jnp.issubdtype(dtype, jnp.floating)):
      raise ValueError(
          f'The dtype of `Categorical` must be integer or floating-point, '
          f'instead got `{dtype}`.')

    self._probs = None if probs is None else normalize(probs=probs)
    self._logits = None if logits is None else normalize(logits=logits)
    self._dtype = dtype

  @property
  def batch_shape(self) -> Tuple[int, ...]:
    # stand-in for Distribution.batch_shape
    return self.logits.shape[:-1]

  @property
  def logits(self) -> Array:
    """The logits for each event."""
    if self._logits is not None:
      return self._logits
    return jnp.log(self._probs)

  @property
  def probs(self) -> Array:
    """The probabilities for each event."""
    if self._probs is not None:
      return self._probs
    return jax.nn.softmax(self._logits, axis=-1)

  def entropy(self) -> Array:
    """See `Distribution.entropy`."""
    if self._logits is None:
      log_probs = jnp.log(self._probs)
    else:
      log_probs = jax.nn.log_softmax(self._logits)
    return -jnp.sum(mul_exp(log_probs, log_probs), axis=-1)

  def __getitem__(self, index) -> 'Categorical':
    """See `Distribution.__getitem__`."""
    index = to_batch_shape_index(self.batch_shape, index)
    if self._logits is not None:
      return Categorical(logits=self.logits[index], dtype=self._dtype)
    return Categorical(probs=self.probs[index], dtype=self._dtype)


@jax.jit
def entropies(logits):
  d = Categorical(logits=logits)
  return d[0].entropy(), d[..., -1].entropy(), d[1:, ::2].entropy()


if __name__ == "__main__":
  logits = jnp.arange(24.0).reshape(2, 3, 4) / 10.0
  first, last, strided = entropies(logits)
  assert first.shape == (3,) and last.shape == (2,) and strided.shape == (1, 2)
  d = Categorical(logits=logits)
  assert jnp.allclose(first, d.entropy()[0]) and jnp.allclose(last, d.entropy()[:, -1])
