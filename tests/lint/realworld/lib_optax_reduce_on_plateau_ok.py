# source: https://github.com/google-deepmind/optax/blob/v0.2.8/optax/contrib/_reduce_on_plateau.py
# observed on jax 0.10.2 CPU with optax 0.2.8: `reduce_on_plateau` chained after SGD runs
#   clean under `jax.jit` of the training step, with the loss passed as `value=`; the
#   checks on `factor`, `rtol` and `atol` are Python `if`s on the factory's float
#   arguments (outside the trace), and the state's plateau logic uses `jnp.where` and
#   `jax.lax.cond` on traced counters. With the loss held constant the scale drops by
#   `factor` after `patience` non-improving steps. The license header and the docstrings
#   are left out; the driver in `__main__` is added.
# gap: exemption-vs-JAX
from typing import NamedTuple

import jax
import jax.numpy as jnp
from optax._src import base
from optax._src import numerics
import optax.tree


class ReduceLROnPlateauState(NamedTuple):
  """State for the ReduceLROnPlateau callback."""

  scale: jax.typing.ArrayLike
  best_value: jax.typing.ArrayLike
  plateau_count: jax.typing.ArrayLike  # shape=(), dtype=jnp.int32
  cooldown_count: jax.typing.ArrayLike  # shape=(), dtype=jnp.int32
  count: jax.typing.ArrayLike  # shape=(), dtype=jnp.int32
  avg_value: jax.typing.ArrayLike


def reduce_on_plateau(
    factor: float = 0.1,
    patience: jax.typing.ArrayLike = 10,
    rtol: float = 1e-4,
    atol: float = 0.0,
    cooldown: jax.typing.ArrayLike = 0,
    accumulation_size: jax.typing.ArrayLike = 1,
    min_scale: jax.typing.ArrayLike = 0.0,
) -> base.GradientTransformationExtraArgs:
  if factor <= 0.0 or factor >= 1.0:
    raise ValueError(
        f"Factor must be in the range (0, 1), got factor = {factor}."
    )

  if rtol < 0.0 or atol < 0.0:
    raise ValueError(
        "Both rtol and atol must be non-negative, got "
        f"rtol = {rtol} and atol = {atol}."
    )
  if rtol == 0.0 and atol == 0.0:
    raise ValueError(
        "At least one of rtol or atol must be positive, got "
        f"rtol = {rtol} and atol = {atol}."
    )
  if rtol > 1.0:
    raise ValueError(
        f"rtol must be less than or equal to 1.0, got rtol = {rtol}."
    )

  def init_fn(params) -> ReduceLROnPlateauState:
    # Define state parameters with the lowest dtype of the parameters to avoid
    # dtype promotion of parameters resulting in a dtype mismatch between
    # parameters and updates.
    lowest_params_dtype = optax.tree.dtype(params, "lowest")
    highest_params_dtype = optax.tree.dtype(params, "highest")
    return ReduceLROnPlateauState(
        best_value=jnp.asarray(float("inf"), dtype=highest_params_dtype),
        plateau_count=jnp.asarray(0, jnp.int32),
        scale=jnp.asarray(1.0, dtype=lowest_params_dtype),
        cooldown_count=jnp.asarray(0, jnp.int32),
        count=jnp.asarray(0, jnp.int32),
        avg_value=jnp.asarray(0.0, highest_params_dtype),
    )

  def _update_scale(state):
    # Update plateau count and check if plateaued
    avg_value = state.avg_value
    has_improved = jnp.where(
        avg_value < (1 - rtol) * state.best_value - atol, 1, 0
    )
    new_best_value: jax.Array = jnp.where(
        has_improved, avg_value.astype(state.best_value.dtype), state.best_value
    )
    curr_plateau_count = jnp.where(
        has_improved, 0, numerics.safe_increment(state.plateau_count)
    )

    # We're in cooldown, so reduce the counter and ignore any bad epochs
    def in_cooldown():
      new_plateau_count = jnp.asarray(0, jnp.int32)
      new_scale = state.scale
      new_cooldown_count = state.cooldown_count - 1
      return new_plateau_count, new_scale, new_cooldown_count

    # We're not in cooldown, so update the plateau count and scale as usual
    def not_in_cooldown():
      new_plateau_count = jnp.where(
          curr_plateau_count == patience, 0, curr_plateau_count
      )
      new_scale = jnp.maximum(
          jnp.where(
              curr_plateau_count == patience,
              state.scale * factor,
              state.scale,
          ),
          min_scale,
      )
      new_cooldown_count = jnp.where(
          curr_plateau_count == patience, cooldown, 0
      ).astype(jnp.int32)

      return new_plateau_count, new_scale, new_cooldown_count

    new_plateau_count, new_scale, new_cooldown_count = jax.lax.cond(
        state.cooldown_count > 0, in_cooldown, not_in_cooldown
    )
    new_state = ReduceLROnPlateauState(
        plateau_count=new_plateau_count,
        best_value=new_best_value.astype(state.best_value.dtype),
        scale=new_scale,
        cooldown_count=new_cooldown_count,
        count=jnp.asarray(0, dtype=jnp.int32),
        avg_value=jnp.asarray(0.0, avg_value.dtype),
    )
    return new_state

  def update_fn(
      updates: base.Updates,
      state: ReduceLROnPlateauState,
      params=None,
      *,
      value: jax.typing.ArrayLike,
      **extra_args,
  ) -> tuple[base.Params, ReduceLROnPlateauState]:
    del params, extra_args

    count = state.count
    new_count = numerics.safe_increment(count)
    new_avg_value = (
        count * state.avg_value + jnp.astype(value, state.avg_value.dtype)  # pytype: disable=attribute-error  # jax-arraylike # noqa: E501
    ) / new_count
    new_state = state._replace(
        avg_value=new_avg_value.astype(state.avg_value.dtype), count=new_count  # pytype: disable=attribute-error  # jax-arraylike # noqa: E501
    )

    new_state = jax.lax.cond(
        new_count == accumulation_size, _update_scale, lambda x: x, new_state
    )

    updates = jax.tree.map(lambda g: new_state.scale * g, updates)

    return updates, new_state

  return base.GradientTransformationExtraArgs(init_fn, update_fn)


if __name__ == "__main__":
  import optax

  opt = optax.chain(optax.sgd(0.1), reduce_on_plateau(factor=0.5, patience=2))
  params = {"w": jnp.ones(3)}
  state = opt.init(params)

  @jax.jit
  def step(params, state, loss):
    grads = jax.tree.map(jnp.ones_like, params)
    updates, state = opt.update(grads, state, params, value=loss)
    return optax.apply_updates(params, updates), state

  for _ in range(4):
    params, state = step(params, state, jnp.asarray(1.0))
  assert float(state[1].scale) == 0.5, state[1]
