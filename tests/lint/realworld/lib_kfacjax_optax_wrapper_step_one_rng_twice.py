# source: https://github.com/google-deepmind/kfac-jax/blob/bd7c1493601dd94f8a1cea096bd908b2a5604398/examples/optimizers.py
#   (OptaxWrapper._step before commit 9a65189, "Fixing improper reuse of PRNG keys in the
#   Optax wrapper", which splits `rng_func, rng_precon = jax.random.split(rng)` and gives
#   one to the model function's arguments and the other to the preconditioner)
# observed on jax 0.10.2 CPU with optax 0.2.8: `rng` goes both into func_args (the model
#   function's key, e.g. for dropout) and to the preconditioner's curvature update, which
#   samples from it: the uniforms the preconditioner drew equal the dropout uniforms of
#   the loss, element for element (the curvature update at line 223, the loss at line
#   229).
#   Kept verbatim: OptaxAndPreconditionState, PreconditionState,
#   Preconditioner.increment_count, OptaxWrapper's constructor (without its docstring,
#   its pmapped init and the preconditioner-init closure) and OptaxWrapper._step; and
#   make_func_args and extract_func_outputs from kfac_jax/_src/optimizer.py (docstrings
#   shortened). Stand-ins (kfac_jax and
#   ml_collections are not installed): `kfac_jax` is a namespace holding those two
#   functions, pmean_if_pmap (here always inside the pmap, so lax.pmean) and norm helpers
#   that this run does not call; the Preconditioner keeps its pmap_axis_name,
#   maybe_update and increment_count, and its maybe_update records the uniforms its
#   curvature estimate would sample from `rng`; the model is a linear regression with
#   dropout on the inputs whose aux data are the dropout uniforms.
# gap: other
import functools
import types
from typing import Any, Callable, Mapping, NamedTuple, Optional, Tuple, Union

import jax
from jax import lax
import jax.numpy as jnp
import optax

Array = jax.Array
Numeric = Union[Array, int, float]
PRNGKey = jax.Array
Params = Any
Batch = Any
FuncState = Any
OptaxState = Any
EstimatorState = Any
ScheduleType = Callable[[Numeric], Numeric]
OptaxCtor = Callable[[ScheduleType], optax.GradientTransformation]
FuncArgsVariants = Tuple[Any, ...]
FuncOutputs = Any
FuncAux = Any


def make_func_args(
    params: Params,
    func_state: Optional[FuncState],
    rng: Optional[PRNGKey],
    batch: Batch,
    has_state: bool,
    has_rng: bool,
) -> FuncArgsVariants:
  """Constructs the arguments to the model function in the pre-assumed order."""
  if has_state and func_state is None:
    raise ValueError("`func_state=None`, but argument `has_state=True`.")

  if has_rng and rng is None:
    raise ValueError("`rng=None`, but argument `has_rng=True`.")

  if not has_state and not has_rng:
    return params, batch

  elif not has_rng:
    return params, func_state, batch

  elif not has_state:
    return params, rng, batch

  else:
    return params, func_state, rng, batch


def extract_func_outputs(
    raw_outputs: FuncOutputs,
    has_aux: bool,
    has_state: bool,
) -> Tuple[Array, Optional[FuncState], Optional[FuncAux]]:
  """Converts the raw output of the model function into loss,func_state and aux."""

  if not has_aux and not has_state:
    return raw_outputs, None, None

  loss, other = raw_outputs

  if has_aux and has_state:
    func_state, aux = other
  elif has_aux:
    func_state, aux = None, other
  else:
    func_state, aux = other, None

  return loss, func_state, aux


def pmean_if_pmap(obj, axis_name):
  # stand-in for kfac_jax.utils.pmean_if_pmap: the step always runs inside the pmap
  return lax.pmean(obj, axis_name)


def norm(obj):
  # stand-in for kfac_jax.utils.norm (not called in this run)
  raise NotImplementedError


def per_parameter_norm(obj, key_prefix):
  # stand-in for kfac_jax.utils.per_parameter_norm (not called in this run)
  raise NotImplementedError


kfac_jax = types.SimpleNamespace(
    optimizer=types.SimpleNamespace(
        make_func_args=make_func_args,
        extract_func_outputs=extract_func_outputs),
    utils=types.SimpleNamespace(
        pmean_if_pmap=pmean_if_pmap,
        norm=norm,
        per_parameter_norm=per_parameter_norm),
)


class PreconditionState(NamedTuple):
  count: Array
  estimator_state: EstimatorState


class Preconditioner:
  """An Optax-compatible K-FAC preconditioner."""

  pmap_axis_name = "kfac_axis"

  def maybe_update(self, state, func_args, rng):
    # stand-in: the uniforms the curvature estimate would sample from `rng`
    batch = func_args[-1]
    samples = jax.random.uniform(rng, batch["x"].shape)
    return PreconditionState(state.count, samples)

  def increment_count(self, state: PreconditionState):
    count_inc = optax.safe_int32_increment(state.count)
    return PreconditionState(count_inc, state.estimator_state)


class OptaxAndPreconditionState(NamedTuple):
  optax_state: OptaxState
  precond_state: Optional[PreconditionState] = None


class OptaxWrapper:
  """Wrapper class for Optax optimizers to have the same interface as KFAC."""

  def __init__(
      self,
      value_and_grad_func: Callable[..., Any],
      value_func_has_aux: bool,
      value_func_has_state: bool,
      value_func_has_rng: bool,
      learning_rate: ScheduleType,
      optax_optimizer_ctor: OptaxCtor,
      batch_process_func: Callable[[Batch], Batch] = lambda x: x,
      preconditioner: Optional[Preconditioner] = None,
      include_norms_in_stats: bool = False,
      include_per_param_norms_in_stats: bool = False,
  ):
    self._value_and_grad_func = value_and_grad_func
    self._value_func_has_aux = value_func_has_aux
    self._value_func_has_state = value_func_has_state
    self._value_func_has_rng = value_func_has_rng
    if not callable(learning_rate):
      self._learning_rate = lambda _: learning_rate
    else:
      self._learning_rate = learning_rate
    # Wraps the optax optimizer (gradient transformation), so that it ignores
    # extra args (i.e. `precond_state` for preconditioner) if not needed.
    self._optax_optimizer = optax.with_extra_args_support(
        optax_optimizer_ctor(self._learning_rate)
    )

    self._preconditioner = preconditioner
    self._include_norms_in_stats = include_norms_in_stats
    self._include_per_param_norms_in_stats = include_per_param_norms_in_stats
    self._batch_process_func = batch_process_func or (lambda x: x)
    self.pmap_axis_name = (
        "optax_axis"
        if self._preconditioner is None
        else self._preconditioner.pmap_axis_name
    )
    self._pmap_step = jax.pmap(
        self._step,
        axis_name=self.pmap_axis_name,
        donate_argnums=list(range(5)),
        in_axes=(0,) * 5 + (None,),
    )
    if self._preconditioner is not None:
      if not isinstance(self._preconditioner, Preconditioner):
        raise ValueError(
            "preconditioner must be a {}, but {} is given.".format(
                Preconditioner, type(self._preconditioner)
            )
        )

  def _step(
      self,
      params: Params,
      state: OptaxAndPreconditionState,
      rng: PRNGKey,
      batch: Batch,
      func_state: Optional[FuncState] = None,
      global_step_int: Optional[int] = None,
  ) -> Union[
      Tuple[Params, OptaxAndPreconditionState, FuncState, Mapping[str, Array]],
      Tuple[Params, OptaxAndPreconditionState, Mapping[str, Array]],
  ]:
    """A single step of optax."""
    batch = self._batch_process_func(batch)
    func_args = kfac_jax.optimizer.make_func_args(
        params, func_state, rng, batch,
        has_state=self._value_func_has_state,
        has_rng=self._value_func_has_rng
    )

    optax_state, precond_state = state.optax_state, state.precond_state
    if self._preconditioner is not None:
      precond_state = self._preconditioner.maybe_update(  # expect: JIT502
          precond_state,
          func_args,
          rng,
      )
      precond_state = self._preconditioner.increment_count(precond_state)
    out, grads = self._value_and_grad_func(*func_args)  # expect: JIT502
    loss, new_func_state, stats = kfac_jax.optimizer.extract_func_outputs(
        out,
        has_aux=self._value_func_has_aux,
        has_state=self._value_func_has_state,
    )
    loss, stats, grads = kfac_jax.utils.pmean_if_pmap(  # pytype: disable=wrong-keyword-args
        (loss, stats, grads), axis_name=self.pmap_axis_name
    )
    stats = stats or {}
    stats["loss"] = loss

    # Compute and apply updates via our optimizer.
    updates, new_optax_state = self._optax_optimizer.update(
        grads,
        optax_state,
        params,
        precond_state=precond_state,
    )
    new_state = OptaxAndPreconditionState(new_optax_state, precond_state)
    new_params = optax.apply_updates(params, updates)

    # Add step and batch size
    batch_size = jax.tree_util.tree_leaves(batch)[0].shape[0]
    stats["step"] = global_step_int + 1
    stats["batch_size"] = batch_size * jax.device_count()
    stats["data_seen"] = stats["step"] * stats["batch_size"]
    stats["learning_rate"] = self._learning_rate(global_step_int)
    if self._include_norms_in_stats:
      stats["grad_norm"] = kfac_jax.utils.norm(grads)
      stats["update_norm"] = kfac_jax.utils.norm(updates)
      stats["param_norm"] = kfac_jax.utils.norm(params)
      stats["rel_grad_norm"] = stats["grad_norm"] / stats["param_norm"]
      stats["rel_update_norm"] = stats["update_norm"] / stats["param_norm"]
    if self._include_per_param_norms_in_stats:
      stats.update(kfac_jax.utils.per_parameter_norm(grads, "grad_norm"))
      stats.update(kfac_jax.utils.per_parameter_norm(updates, "update_norm"))
      param_norms = kfac_jax.utils.per_parameter_norm(params, "param_norm")
      for key in param_norms:
        norm = param_norms[key]
        stats[key] = norm
        grad_key = key.replace("param", "grad")
        stats["rel_" + grad_key] = stats[grad_key] / norm
        upd_key = key.replace("param", "update")
        stats["rel_" + upd_key] = stats[upd_key] / norm

    if self._value_func_has_state:
      return new_params, new_state, new_func_state, stats
    else:
      return new_params, new_state, stats

def loss_fn(params, rng, batch):
  # stand-in model: linear regression with dropout on the inputs
  u = jax.random.uniform(rng, batch["x"].shape)
  x = jnp.where(u > 0.5, batch["x"] / 0.5, 0.0)
  loss = jnp.mean((x @ params["w"] - batch["y"]) ** 2)
  return loss, {"dropout_u": u}


def make_inputs(wrapper, rng):
  # one device: every argument carries a leading device axis of size 1
  params = {"w": jnp.zeros((1, 3, 1))}
  state = OptaxAndPreconditionState(
      optax_state=jax.vmap(wrapper._optax_optimizer.init)(params),
      precond_state=PreconditionState(jnp.zeros((1,), jnp.int32), jnp.zeros((1, 8, 3))))
  batch = {"x": jnp.ones((1, 8, 3)), "y": jnp.ones((1, 8, 1))}
  return params, state, rng[None], batch


if __name__ == "__main__":
  wrapper = OptaxWrapper(
      value_and_grad_func=jax.value_and_grad(loss_fn, has_aux=True),
      value_func_has_aux=True,
      value_func_has_state=False,
      value_func_has_rng=True,
      learning_rate=1e-2,
      optax_optimizer_ctor=optax.sgd,
      preconditioner=Preconditioner(),
  )
  key = jax.random.key(0)

  params, state, rng, batch = make_inputs(wrapper, key)
  new_params, new_state, stats = wrapper._pmap_step(params, state, rng, batch, None, 0)
  # observed: line 223 samples the curvature estimate from the key that line 229 hands the loss for its dropout
  assert bool(jnp.all(new_state.precond_state.estimator_state == stats["dropout_u"]))
