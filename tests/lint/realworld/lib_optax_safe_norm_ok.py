# source: https://github.com/google-deepmind/optax/blob/v0.2.8/optax/_src/numerics.py
#   (safe_norm, optax 0.2.8 as released; docstring shortened)
# observed on jax 0.10.2 CPU: runs clean under jit and grad: the branch on `keepdims` is on
#   a Python flag; the value-dependent choice is made with jnp.where.
# gap: flow-sensitive
from typing import Optional, Union

import jax
import jax.numpy as jnp


def safe_norm(
    x: jax.typing.ArrayLike,
    min_norm: jax.typing.ArrayLike,
    ord: Optional[Union[int, float, str]] = None,  # pylint: disable=redefined-builtin
    axis: Union[None, tuple[int, ...], int] = None,
    keepdims: bool = False,
) -> jax.Array:
  """Returns jnp.maximum(jnp.linalg.norm(x), min_norm) with correct gradients."""
  norm = jnp.linalg.norm(x, ord=ord, axis=axis, keepdims=True)
  x = jnp.where(norm <= min_norm, jnp.ones_like(x), x)
  norm = jnp.squeeze(norm, axis=axis) if not keepdims else norm
  masked_norm = jnp.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
  return jnp.where(norm <= min_norm, min_norm, masked_norm)


if __name__ == "__main__":
    print(jax.jit(safe_norm)(jnp.zeros(3), 1e-6))
    print(jax.jit(jax.grad(safe_norm))(jnp.zeros(3), 1e-6))
    print(jax.jit(safe_norm, static_argnames=("axis", "keepdims"))(
        jnp.ones((2, 3)), 0.0, axis=1, keepdims=True))
