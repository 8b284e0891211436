# source: https://github.com/google-deepmind/optax/blob/c199648eef6d647d2d7a6b0d7712a9b063878acc/optax/contrib/_schedule_free.py
#   (schedule_free before pull request #1059, commit b60629df, "Ensure it's possible to
#   donate both the schedule-free state and the params", which copies z in init_fn)
# observed on jax 0.10.2 CPU: the step jitted with donate_argnums=(0, 1) raises
#   JaxRuntimeError "INVALID_ARGUMENT: Attempt to donate the same buffer twice in
#   Execute()": init_fn stores `z = params`, so the state's z and the params are one
#   buffer, donated twice in the same call. The license header and the long docstrings
#   are cut; schedule_free_sgd keeps only the path its defaults take (no warmup, no
#   weight decay); `otu.tree_assert_dtype_preserved` (gone from the installed optax) sits
#   in the state_dtype branch, which the default None never reaches; `chex.Array` is
#   spelled `jax.Array` (chex is not installed). The driver is the test the pull request
#   adds (optax/contrib/_schedule_free_test.py, test_buffer_donation).
# gap: other
from functools import partial
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
from optax._src import alias
from optax._src import base
from optax._src import numerics
from optax._src import update
import optax.tree_utils as otu


class ScheduleFreeState(NamedTuple):
  """State for schedule_free."""

  b1: jax.Array
  weight_sum: jax.Array
  step_count: jax.Array
  max_lr: jax.Array
  base_optimizer_state: base.OptState
  z: base.Params


def schedule_free(
    base_optimizer: base.GradientTransformation,
    learning_rate: base.ScalarOrSchedule,
    b1: float = 0.9,
    weight_lr_power: float = 2.0,
    state_dtype: Optional[jax.typing.DTypeLike] = None,
) -> base.GradientTransformationExtraArgs:
  r"""Turn base_optimizer schedule_free."""
  base_optimizer = base.with_extra_args_support(base_optimizer)

  def init_fn(params: base.Params) -> ScheduleFreeState:
    # Define state parameters with the lowest dtype of the parameters to avoid
    # dtype promotion of parameters resulting in a dtype mismatch between
    # parameters and updates.
    params_dtype = otu.tree_dtype(params, 'lowest')
    if state_dtype is not None:
      otu.tree_assert_dtype_preserved(params, state_dtype)
      z = otu.tree_cast(params, dtype=state_dtype)
    else:
      z = params
    return ScheduleFreeState(
        b1=jnp.asarray(b1, dtype=params_dtype),
        weight_sum=jnp.zeros([], dtype=params_dtype),
        step_count=jnp.ones([], dtype=jnp.int32),
        max_lr=jnp.zeros([], dtype=params_dtype),
        base_optimizer_state=base_optimizer.init(params),
        z=z,
    )

  def update_fn(
      grads: base.Updates,
      state: ScheduleFreeState,
      params: Optional[base.Params] = None,
      **extra_args,
  ):
    lr = learning_rate
    if callable(learning_rate):
      lr = jnp.asarray(
          learning_rate(state.step_count), dtype=state.max_lr.dtype
      )
    max_lr = jnp.maximum(state.max_lr, lr)

    next_step_count = numerics.safe_increment(state.step_count)

    weight = max_lr**weight_lr_power
    next_total_weight = state.weight_sum + weight
    # We add this to avoid NaNs in the case of a small learning rate.
    ck = jnp.where(
        jnp.logical_or(jnp.isnan(weight), jnp.isnan(next_total_weight)),
        jnp.full(weight.shape, jnp.nan),
        jnp.nan_to_num(weight / next_total_weight, nan=0.0, posinf=jnp.inf),
    )

    base_updates, next_base_optimizer_state = base_optimizer.update(
        grads,
        state.base_optimizer_state,
        params,
        **extra_args,
    )
    z = jax.tree.map(
        lambda pi, ui: jnp.asarray(pi + ui).astype(jnp.asarray(pi).dtype),
        state.z,
        base_updates,
    )

    # Important: recompute x to both save memory and maintain accurate x seq
    # especially if y is modified by another transform wrapped on top.
    prev_x = jax.tree.map(
        lambda yi, zi: (yi - (1.0 - b1) * zi) / b1, params, state.z
    )

    x = jax.tree.map(
        lambda xi, zi: (1.0 - ck) * xi + ck * zi,
        prev_x,
        z,
    )
    new_params = jax.tree.map(
        lambda xi, zi: b1 * xi + (1.0 - b1) * zi,
        x,
        z,
    )
    updates = jax.tree.map(
        lambda npi, pi: npi - pi, new_params, params
    )

    next_state = ScheduleFreeState(
        b1=state.b1,
        weight_sum=next_total_weight,
        step_count=next_step_count,
        max_lr=max_lr,
        base_optimizer_state=next_base_optimizer_state,
        z=z,
    )

    return updates, next_state

  return base.GradientTransformationExtraArgs(init_fn, update_fn)


def schedule_free_sgd(
    learning_rate: float = 1.0,
    warmup_steps: Optional[int] = None,
    b1: float = 0.9,
    weight_decay: Optional[float] = None,
    weight_lr_power: float = 2.0,
    state_dtype: Optional[jax.typing.DTypeLike] = None,
) -> base.GradientTransformationExtraArgs:
  """Schedule-Free wrapper for SGD."""
  optimizer = alias.sgd(learning_rate)
  return schedule_free(
      optimizer,
      learning_rate=learning_rate,
      b1=b1,
      weight_lr_power=weight_lr_power,
      state_dtype=state_dtype,
  )


def _setup_parabola(dtype):
  """Quadratic function as an optimization target."""
  initial_params = jnp.array([-1.0, 10.0, 1.0], dtype=dtype)
  final_params = jnp.array([1.0, -1.0, 1.0], dtype=dtype)

  @jax.grad
  def get_updates(params):
    return jnp.sum(numerics.abs_sq(params - final_params))

  return initial_params, final_params, get_updates


if __name__ == "__main__":
  # Check that you can donate the params and optimizer state when doing a JIT
  # update.
  opt = schedule_free_sgd()
  initial_params, _, get_updates = _setup_parabola(jnp.float32)

  @partial(jax.jit, donate_argnums=(0,1))
  def step(params, state):
    updates = get_updates(params)
    updates, state = opt.update(updates, state, params)
    params = update.apply_updates(params, updates)
    return params, state

  state = opt.init(initial_params)
  _, _ = step(initial_params, state)  # expect: JIT504
