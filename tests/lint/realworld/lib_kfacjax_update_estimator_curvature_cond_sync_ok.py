# source: https://github.com/google-deepmind/kfac-jax/blob/c275017f3457d0ce4e91cd3ac22a9d9a48c98661/kfac_jax/_src/optimizer.py
#   (Optimizer._update_estimator_curvature after commit c275017, "Fixing a concretization
#   jax error introduced in previous commit.": the sync is a `jax.lax.cond` on `sync`)
# observed on jax 0.10.2 CPU: runs clean under jax.jit with inverse_update_period > 1, where
#   `sync` is the traced `state.step_counter % self._inverse_update_period == 0`; the
#   estimator state comes back synced at step 0 and not synced at step 1.
#   Kept verbatim: should_update_estimate_curvature, should_update_inverse_cache,
#   _maybe_update_estimator_state, _update_estimator_curvature and
#   _maybe_update_estimator_curvature of Optimizer, Optimizer.State, and utils.State with
#   register_state_class (kfac_jax/_src/utils/misc.py, without the serialization registry).
#   Stand-ins (kfac_jax is not installed): the constructor keeps only the attributes these
#   methods read; the curvature estimator keeps an EMA of the batch's second moment (it
#   ignores `rng`) and its sync marks the state synced (one device); the batch size
#   extractor reads the batch's leading axis; and the jitted `step` at the end stands in
#   for Optimizer._step, copying its call of _maybe_update_estimator_curvature.
# gap: other
import abc
import dataclasses
import functools
from typing import Any, Callable, Dict, Generic, Optional, Tuple, Type, TypeVar, Union

import jax
from jax import lax
import jax.numpy as jnp

Array = jax.Array
PRNGKey = jax.Array
Numeric = Union[Array, int, float]
Params = TypeVar("Params")
Batch = Any
FuncArgsVariants = Tuple[Params, Batch]
StateType = TypeVar("StateType")


class State(abc.ABC):
  """Abstract class for state classes."""

  @classmethod
  def field_names(cls) -> Tuple[str, ...]:
    return tuple(field.name for field in dataclasses.fields(cls))  # pytype: disable=wrong-arg-types

  @classmethod
  def field_types(cls) -> Dict[str, Type[Any]]:
    return {field.name: field.type for field in dataclasses.fields(cls)}  # pytype: disable=wrong-arg-types

  @property
  def field_values(self) -> Tuple[Any, ...]:
    return tuple(getattr(self, name) for name in self.field_names())

  def copy(self: StateType) -> StateType:
    """Returns a copy of the PyTree structure (but not the JAX arrays)."""
    (flattened, structure) = jax.tree_util.tree_flatten(self)
    return jax.tree_util.tree_unflatten(structure, flattened)

  def tree_flatten(self) -> Tuple[Tuple[Any, ...], Tuple[str, ...]]:
    return self.field_values, self.field_names()

  @classmethod
  def tree_unflatten(
      cls,
      aux_data: Tuple[str, ...],
      children: Tuple[Any, ...],
  ):
    return cls(**dict(zip(aux_data, children)))


def register_state_class(class_type: Type[Any]) -> Type[Any]:
  """Extended dataclass decorator, which also registers the class as a PyTree."""
  if not issubclass(class_type, State):
    raise ValueError(
        f"Class {class_type} is not a subclass of kfac_jax.utils.State."
    )

  class_type = dataclasses.dataclass(class_type)
  class_type = jax.tree_util.register_pytree_node_class(class_type)
  return class_type


class CurvatureEstimator:
  """Stand-in for curvature_estimator.BlockDiagonalCurvature."""

  @register_state_class
  class State(State):
    factor: Array
    synced: Array

  def update_curvature_matrix_estimate(self, state, ema_old, ema_new,
                                       batch_size, rng, func_args):
    del rng
    x = func_args[-1]
    moment = x.T @ x / batch_size
    return CurvatureEstimator.State(
        factor=ema_old * state.factor + ema_new * moment,
        synced=jnp.array(False))

  def sync(self, state, pmap_axis_name):
    return CurvatureEstimator.State(factor=state.factor, synced=jnp.array(True))


class Optimizer:
  """The K-FAC optimizer (the methods that update the curvature estimate)."""

  @register_state_class
  class State(Generic[Params], State):
    r"""Persistent state of the optimizer."""
    velocities: Params
    estimator_state: CurvatureEstimator.State
    damping: Optional[Array]
    data_seen: Numeric
    step_counter: Numeric

  def __init__(self, curvature_ema=0.95, curvature_update_period=1,
               inverse_update_period=5, pmap_axis_name="kfac_axis"):
    # stand-in: only the attributes the methods below read
    self.estimator = CurvatureEstimator()
    self.pmap_axis_name = pmap_axis_name
    self._curvature_ema = curvature_ema
    self._curvature_update_period = curvature_update_period
    self._inverse_update_period = inverse_update_period
    self._batch_size_extractor = lambda batch: batch.shape[0]

  def should_update_estimate_curvature(
      self, state: "Optimizer.State"
  ) -> Union[Array, bool]:
    """Whether at the current step the optimizer should update the curvature estimates."""
    if self._curvature_update_period == 1:
      return True
    return state.step_counter % self._curvature_update_period == 0

  def should_update_inverse_cache(
      self, state: "Optimizer.State"
  ) -> Union[Array, bool]:
    """Whether at the current step the optimizer should update the inverse curvature approximation."""
    if self._inverse_update_period == 1:
      return True
    return state.step_counter % self._inverse_update_period == 0

  def _maybe_update_estimator_state(
      self,
      state: "Optimizer.State",
      should_update: Union[Array, bool],
      update_func: Callable[..., CurvatureEstimator.State],
      **update_func_kwargs,
  ) -> "Optimizer.State":
    """Updates the estimator state if it is the right iteration."""

    # Copy this first since we mutate it later in this function.
    state = state.copy()

    state.estimator_state = lax.cond(
        should_update,
        functools.partial(update_func, **update_func_kwargs),
        lambda state_: state_,
        state.estimator_state,
    )
    return state

  def _update_estimator_curvature(
      self,
      estimator_state: CurvatureEstimator.State,
      func_args: FuncArgsVariants,
      rng: PRNGKey,
      ema_old: Numeric,
      ema_new: Numeric,
      sync: Union[Array, bool] = True
  ) -> CurvatureEstimator.State:
    """Updates the curvature estimator state."""
    # TODO(kazukiosawa, jamesmartens, botev): Prepare an entirely separate
    # method to perform syncs (independent of any updating) to support more
    # advanced use cases.
    state = self.estimator.update_curvature_matrix_estimate(
        state=estimator_state,
        ema_old=ema_old,
        ema_new=ema_new,
        # Note that the batch is always the last entry of FuncArgsVariantsdef
        batch_size=self._batch_size_extractor(func_args[-1]),
        rng=rng,
        func_args=func_args,
    )
    return jax.lax.cond(
        sync,
        functools.partial(self.estimator.sync,
                          pmap_axis_name=self.pmap_axis_name),
        lambda state_: state_,
        state,
    )

  def _maybe_update_estimator_curvature(
      self,
      state: "Optimizer.State",
      func_args: FuncArgsVariants,
      rng: PRNGKey,
      ema_old: Numeric,
      ema_new: Numeric,
      sync: Union[Array, bool] = True,
  ) -> "Optimizer.State":
    """Updates the curvature estimates if it is the right iteration."""
    return self._maybe_update_estimator_state(
        state,
        self.should_update_estimate_curvature(state),
        self._update_estimator_curvature,
        func_args=func_args,
        rng=rng,
        ema_old=ema_old,
        ema_new=ema_new,
        sync=sync,
    )


if __name__ == "__main__":
  optimizer = Optimizer(inverse_update_period=5)

  @jax.jit
  def step(state, params, batch, rng):
    # stand-in for Optimizer._step: its curvature update
    func_args = (params, batch)
    state = optimizer._maybe_update_estimator_curvature(
        state,
        func_args,
        rng,
        optimizer._curvature_ema,
        1.0,
        sync=optimizer.should_update_inverse_cache(
            state
        ),  # sync curvature estimates only before inverses are updated.
    )
    return state

  params = {"w": jnp.zeros((3, 2))}
  state = Optimizer.State(
      velocities=jax.tree_util.tree_map(jnp.zeros_like, params),
      estimator_state=CurvatureEstimator.State(
          factor=jnp.zeros((3, 3)), synced=jnp.array(True)),
      damping=jnp.array(1e-3),
      data_seen=jnp.array(0),
      step_counter=jnp.array(0),
  )
  batch = jnp.ones((8, 3))
  key0, key1 = jax.random.split(jax.random.key(0))
  state = step(state, params, batch, key0)
  assert bool(state.estimator_state.synced)
  state = dataclasses.replace(state, step_counter=state.step_counter + 1)
  state = step(state, params, batch, key1)
  assert not bool(state.estimator_state.synced)
