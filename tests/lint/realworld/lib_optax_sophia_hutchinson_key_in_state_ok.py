# source: https://github.com/google-deepmind/optax/blob/v0.2.8/optax/contrib/_sophia.py
# observed on jax 0.10.2 CPU: runs clean under jit; the estimator keeps its key in its state
#   and splits it on every update, so each jitted update draws fresh Rademacher signs, and
#   `params is None` / `obj_fn is None` test Python structure, not traced values.
# gap: other
# added: the `__main__` block and its objective; `HutchinsonState` and
#   `hutchinson_estimator_diag_hessian` as in the file (docstring shortened), with optax's own
#   `base` and `optax.tree` imported from the installed optax 0.2.8.
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
from optax._src import base
import optax.tree


class HutchinsonState(NamedTuple):
  key: jax.Array


def hutchinson_estimator_diag_hessian(random_seed: Optional[jax.Array] = None):
  """Returns a GradientTransformationExtraArgs computing the Hessian diagonal."""

  def init_fn(params):
    del params
    key = random_seed if random_seed is not None else jax.random.PRNGKey(0)
    return HutchinsonState(key=key)

  def update_fn(updates, state, params=None, obj_fn=None, **extra_args):
    # complies with signature of GradientTransformationExtraArgs but ignores the
    # extra_args
    del extra_args
    if params is None:
      raise ValueError("params must be provided to hutchinson update function.")
    if obj_fn is None:
      raise ValueError("obj_fn must be provided to hutchinson update function.")
    del updates
    key, subkey = jax.random.split(state.key)
    random_signs = optax.tree.random_like(
        subkey,
        params,
        jax.random.rademacher,
        dtype=jnp.float32,
    )
    random_signs = optax.tree.cast(random_signs,
                                   optax.tree.dtype(params, "lowest"))
    hvp = jax.jvp(jax.grad(obj_fn), (params,), (random_signs,))[1]
    product = jax.tree.map(lambda h, r: h * r, hvp, random_signs)
    return product, HutchinsonState(key=key)

  return base.GradientTransformationExtraArgs(init_fn, update_fn)


if __name__ == "__main__":
    def obj_fn(params):
        return jnp.sum(params["w"] ** 2 * jnp.arange(1.0, 9.0)) + jnp.sum(params["b"] ** 4)

    est = hutchinson_estimator_diag_hessian(jax.random.key(1))
    params = {"w": jnp.ones(8), "b": jnp.ones(4)}

    @jax.jit
    def estimate(params, state):
        return est.update(params, state, params, obj_fn=obj_fn)

    with jax.debug_key_reuse(True):
        state = est.init(params)
        first, state = estimate(params, state)
        second, state = estimate(params, state)
    # the diagonal of a diagonal Hessian is exact whatever the signs
    assert jnp.allclose(first["w"], 2.0 * jnp.arange(1.0, 9.0))
    assert jnp.allclose(second["b"], 12.0)
