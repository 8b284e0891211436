# source: https://github.com/google-deepmind/optax/blob/v0.2.8/optax/losses/_regression.py
#   (huber_loss, optax 0.2.8 as released)
# observed on jax 0.10.2 CPU: runs clean under jit and under jax.grad: `targets is not None`
#   is a Python test and the value-dependent branch is written with jnp.minimum.
# gap: exemption-vs-JAX
from typing import Optional

import jax
import jax.numpy as jnp
from optax._src import utils


def huber_loss(
    predictions: jax.typing.ArrayLike,
    targets: Optional[jax.typing.ArrayLike] = None,
    *,
    delta: jax.typing.ArrayLike = 1.0,
) -> jax.Array:
  """Huber loss, similar to L2 loss close to zero, L1 loss away from zero.

  If gradient descent is applied to the `huber loss`, it is equivalent to
  clipping gradients of an `l2_loss` to `[-delta, delta]` in the backward pass.

  Args:
    predictions: a vector of arbitrary shape `[...]`.
    targets: a vector with shape broadcastable to that of `predictions`; if not
      provided then it is assumed to be a vector of zeros.
    delta: the bounds for the huber loss transformation, defaults at 1.

  Returns:
    elementwise huber losses, with the same shape of `predictions`.

  References:
    `Huber loss <https://en.wikipedia.org/wiki/Huber_loss>`_, Wikipedia.
  """
  utils.check_subdtype(predictions, jnp.floating)
  errors = (predictions - targets) if (targets is not None) else predictions
  # 0.5 * err^2                  if |err| <= d
  # 0.5 * d^2 + d * (|err| - d)  if |err| > d
  abs_errors = jnp.abs(errors)
  quadratic = jnp.minimum(abs_errors, delta)
  # Same as max(abs_x - delta, 0) but avoids potentially doubling gradient.
  linear = abs_errors - quadratic
  return 0.5 * quadratic**2 + delta * linear


if __name__ == "__main__":
    p = jnp.array([0.5, 3.0, -2.0])
    out = jax.jit(huber_loss)(p, jnp.zeros(3))
    assert jnp.allclose(out, jnp.array([0.125, 2.5, 1.5]))
    assert jax.jit(huber_loss)(p).shape == (3,)
    g = jax.grad(lambda q: huber_loss(q).sum())(p)
    assert jnp.allclose(g, jnp.array([0.5, 1.0, -1.0]))
