# source: https://github.com/google-deepmind/optax/blob/v0.2.8/optax/losses/_smoothing.py
#   (smooth_labels, optax 0.2.8 as released; docstring shortened)
# observed on jax 0.10.2 CPU: runs clean under jit: `where is None` is a Python test, and
#   jnp.size(labels, axis) reads the static shape with axis left at its Python default.
# gap: exemption-vs-JAX
from typing import Union

import jax
import jax.numpy as jnp
from optax._src import utils


def smooth_labels(
    labels: jax.typing.ArrayLike,
    alpha: jax.typing.ArrayLike,
    *,
    axis: Union[int, tuple[int, ...], None] = -1,
    where: Union[jax.typing.ArrayLike, None] = None,
) -> jax.Array:
  """Apply label smoothing."""
  utils.check_subdtype(labels, jnp.floating)
  if where is None:
    num_categories = jnp.size(labels, axis)
  else:
    num_categories = jnp.sum(where, axis, keepdims=True)
  return (1.0 - alpha) * labels + alpha / num_categories  # pytype: disable=bad-return-type  # jax-arraylike # noqa: E501


if __name__ == "__main__":
    labels = jax.nn.one_hot(jnp.array([0, 2]), 4)
    out = jax.jit(smooth_labels)(labels, 0.1)
    assert jnp.allclose(out.sum(-1), 1.0) and jnp.allclose(out[0, 0], 0.925)
    mask = jnp.array([[True, True, True, False]] * 2)
    out = jax.jit(smooth_labels)(labels, 0.1, where=mask)
    assert out.shape == (2, 4)
