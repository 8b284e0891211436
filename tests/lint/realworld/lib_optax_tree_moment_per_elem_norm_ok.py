# source: https://github.com/google-deepmind/optax/blob/v0.2.8/optax/tree_utils/_tree_math.py
#   (tree_update_moment_per_elem_norm, optax 0.2.8 as released)
# observed on jax 0.10.2 CPU: runs clean under jit on a tree with a complex and a real leaf:
#   `if jnp.isrealobj(g)` tests the dtype (a Python bool), and `order`, a Python number
#   closed over as a static argument, is what `half_order.is_integer()` and `int()` see.
#   The __main__ block is added.
# gap: exemption-vs-JAX
import functools

import jax
import jax.numpy as jnp
from optax._src import numerics


def tree_update_moment_per_elem_norm(updates, moments, decay, order):
  """Compute the EMA of the `order`-th moment of the element-wise norm."""

  def orderth_norm(g):
    if jnp.isrealobj(g):
      return g ** order

    half_order = order / 2
    # JAX generates different HLO for int and float `order`
    if half_order.is_integer():
      half_order = int(half_order)
    return numerics.abs_sq(g) ** half_order

  return jax.tree.map(
      lambda g, t: (
          (1 - decay) * orderth_norm(g) + decay * t if g is not None else None
      ),
      updates,
      moments,
      is_leaf=lambda x: x is None,
  )


if __name__ == "__main__":
    updates = {"c": jnp.array([1.0 + 1.0j, 2.0j]), "r": jnp.array([3.0, -1.0])}
    moments = {"c": jnp.zeros(2), "r": jnp.zeros(2)}
    step = jax.jit(functools.partial(tree_update_moment_per_elem_norm, order=2))
    out = step(updates, moments, 0.9)
    assert jnp.allclose(out["c"], 0.1 * jnp.array([2.0, 4.0]))
    assert jnp.allclose(out["r"], 0.1 * jnp.array([9.0, 1.0]))
