# source: https://github.com/google-deepmind/optax/blob/v0.2.8/optax/transforms/_conditionality.py
# observed on jax 0.10.2 CPU: runs clean under jit; the finiteness test is a traced
#   jnp.all, the skip is a lax.cond, and the counters are updated with jnp.where, so a NaN
#   gradient is rejected and a finite one applied by one compiled update.
# gap: exemption-vs-JAX
# added: the `__main__` block; `ApplyIfFiniteState` and `apply_if_finite` as in the file,
#   with optax's own `base`, `numerics` and `optax.tree` imported from the installed optax 0.2.8.
from typing import Any, NamedTuple

import jax
from jax import lax
import jax.numpy as jnp
import optax
from optax._src import base
from optax._src import numerics
import optax.tree


class ApplyIfFiniteState(NamedTuple):
  """State of the `GradientTransformation` returned by `apply_if_finite`."""

  notfinite_count: Any
  last_finite: Any
  total_notfinite: Any
  inner_state: Any


def apply_if_finite(
    inner: base.GradientTransformation, max_consecutive_errors: int
) -> base.GradientTransformation:
  """A function that wraps an optimizer to make it robust to a few NaNs or Infs."""

  inner = base.with_extra_args_support(inner)

  def init(params):
    return ApplyIfFiniteState(
        notfinite_count=jnp.zeros([], jnp.int32),
        last_finite=jnp.array(True, jnp.bool_),
        total_notfinite=jnp.zeros([], jnp.int32),
        inner_state=inner.init(params),
    )

  def update(updates, state, params=None, **extra_args):
    inner_state = state.inner_state
    flat_updates = jax.tree.flatten(updates)[0]
    isfinite = jnp.all(
        jnp.array([jnp.all(jnp.isfinite(p)) for p in flat_updates])
    )
    notfinite_count = jnp.where(
        isfinite,
        jnp.zeros([], jnp.int32),
        numerics.safe_increment(state.notfinite_count),
    )

    def do_update(_):
      return inner.update(updates, inner_state, params, **extra_args)

    def reject_update(_):
      return optax.tree.zeros_like(updates), inner_state

    updates, new_inner_state = lax.cond(
        jnp.logical_or(isfinite, notfinite_count > max_consecutive_errors),
        do_update,
        reject_update,
        operand=None,
    )

    return updates, ApplyIfFiniteState(
        notfinite_count=notfinite_count,
        last_finite=isfinite,
        total_notfinite=jnp.where(
            isfinite,
            state.total_notfinite,
            numerics.safe_increment(state.total_notfinite),
        ),
        inner_state=new_inner_state,
    )

  return base.GradientTransformationExtraArgs(init=init, update=update)


if __name__ == "__main__":
    opt = apply_if_finite(optax.sgd(0.1), max_consecutive_errors=2)
    params = {"w": jnp.ones(3), "b": jnp.zeros(())}
    state = opt.init(params)
    update = jax.jit(opt.update)
    bad = {"w": jnp.array([1.0, jnp.nan, 1.0]), "b": jnp.ones(())}
    updates, state = update(bad, state, params)
    assert float(jnp.abs(updates["w"]).sum()) == 0.0 and int(state.notfinite_count) == 1
    good = {"w": jnp.ones(3), "b": jnp.ones(())}
    updates, state = update(good, state, params)
    assert abs(float(updates["b"]) + 0.1) < 1e-6 and int(state.notfinite_count) == 0
    assert int(state.total_notfinite) == 1
