# source: https://github.com/google-deepmind/optax/blob/v0.2.8/optax/transforms/_clipping.py
#   (clip_by_global_norm, _check_arrays_have_batch_dim and per_example_global_norm_clip,
#   optax 0.2.8 as released; docstrings shortened)
# observed on jax 0.10.2 CPU: runs clean under jit: the `if not _check_arrays_have_batch_dim`
#   branch reads only shapes and ndim, which are Python values while tracing, and the
#   value-dependent clipping is done with lax.select and jnp.minimum.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
from optax._src import base
from optax._src import utils
import optax.tree


def clip_by_global_norm(
    max_norm: jax.typing.ArrayLike  # float
) -> base.GradientTransformation:
  """Clips updates using their global norm."""

  def update_fn(updates, state, params=None):
    del params
    g_norm = optax.tree.norm(updates)
    # TODO(b/163995078): revert back to the following (faster) implementation
    # once analyzed how it affects backprop through update (e.g. meta-gradients)
    # g_norm = jnp.maximum(max_norm, g_norm)
    # updates = jax.tree.map(lambda t: (t / g_norm) * max_norm, updates)
    trigger = jnp.squeeze(g_norm < max_norm)
    utils.check_rank(trigger, 0)  # A scalar.

    def clip_fn(t):
      return jax.lax.select(trigger, t, (t / g_norm.astype(t.dtype)) * max_norm)

    updates = jax.tree.map(clip_fn, updates)
    return updates, state

  return base.GradientTransformation(base.init_empty_state, update_fn)


def _check_arrays_have_batch_dim(grads: base.ArrayTree) -> bool:
  """Checks that each array in grads has a batch dimension in the 0th axis."""
  grads = jax.tree.flatten(grads)[0]
  batch_size = grads[0].shape[0]
  return all(g.ndim >= 1 and batch_size == g.shape[0] for g in grads)


def per_example_global_norm_clip(
    grads: base.ArrayTree, l2_norm_clip: jax.typing.ArrayLike  # float
) -> tuple[base.ArrayTree, jax.Array]:
  """Applies gradient clipping per-example using their global norm."""

  if not _check_arrays_have_batch_dim(grads):
    raise ValueError(
        "Unlike other transforms, `per_example_global_norm_clip` expects"
        " `grads` to have a batch dimension in the 0th axis."
    )

  global_grad_norms = jax.vmap(optax.tree.norm)(grads)
  multipliers = jnp.nan_to_num(
      jnp.minimum(l2_norm_clip / global_grad_norms, 1.0), nan=1.0
  )
  num_clipped = jnp.sum(multipliers < 1.0)
  clipped_sum = jax.tree.map(
      lambda g: jnp.tensordot(multipliers, g, axes=1), grads
  )
  return clipped_sum, num_clipped


if __name__ == "__main__":
    grads = [jnp.array([[0., 0, 0], [0, 3, 4], [4, 0, 3], [3, 4, 0]])]
    clipped, n = jax.jit(per_example_global_norm_clip)(grads, 1.25)
    assert int(n) == 3 and jnp.allclose(clipped[0], 1.75)
    tx = clip_by_global_norm(1.0)
    updates = {"w": jnp.full((3,), 4.0)}
    out, _ = jax.jit(tx.update)(updates, tx.init(updates))
    assert jnp.allclose(jnp.linalg.norm(out["w"]), 1.0, atol=1e-5)
