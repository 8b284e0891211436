# source: https://github.com/google/jaxopt/blob/131a7dab770b1c8fefdbe1b9770e3894cded87bc/jaxopt/_src/base.py
#   (IterativeSolver._run before 09bda05 "Prevent recompilation of loops in `solver.run` when
#   executing without `jit`"; loop.while_loop and its helpers from jaxopt/_src/loop.py and
#   FixedPointIteration from jaxopt/_src/fixed_point_iteration.py at the same commit. Reduced:
#   the run() wrapper without the implicit-diff decorator (the solver is built with
#   implicit_diff=False, which run() then skips), tree_sub / tree_l2_norm written with
#   jax.tree_util.tree_map for jaxopt.tree_util, a SimpleNamespace standing for the module
#   jaxopt.loop, and the __main__ block that runs the
#   solver three times)
# observed on jax 0.10.2 CPU: every solver.run() defines new local cond_fun / body_fun
#   closures and hands them to loop.while_loop, which jits the loop with them as static
#   arguments: each run misses jit's cache and traces and compiles the loop again, though
#   the solver, the shapes and the functions' code are the same.
# gap: per-call-recompile
import abc
import dataclasses
import operator
import types
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, Optional, Union

import jax
import jax.numpy as jnp
from jax.tree_util import tree_map

AutoOrBoolean = Union[str, bool]


def tree_sub(tree_x, tree_y):
  return tree_map(operator.sub, tree_x, tree_y)


def tree_l2_norm(tree_x):
  return jnp.sqrt(sum(jnp.sum(jnp.square(x)) for x in jax.tree_util.tree_leaves(tree_x)))


# jaxopt/_src/loop.py
def _while_loop_scan(cond_fun, body_fun, init_val, max_iter):
  """Scan-based implementation (jit ok, reverse-mode autodiff ok)."""
  def _iter(val):
    next_val = body_fun(val)
    next_cond = cond_fun(next_val)
    return next_val, next_cond

  def _fun(tup, it):
    val, cond = tup
    # When cond is met, we start doing no-ops.
    return jax.lax.cond(cond, _iter, lambda x: (x, False), val), it

  init = (init_val, cond_fun(init_val))
  return jax.lax.scan(_fun, init, None, length=max_iter)[0][0]


def _while_loop_python(cond_fun, body_fun, init_val, maxiter):
  """Python based implementation (no jit, reverse-mode autodiff ok)."""
  val = init_val
  for _ in range(maxiter):
    cond = cond_fun(val)
    if not cond:
      # When condition is met, break (not jittable).
      break
    val = body_fun(val)
  return val


def _while_loop_lax(cond_fun, body_fun, init_val, maxiter):
  """lax.while_loop based implementation (jit by default, no reverse-mode)."""
  def _cond_fun(_val):
    it, val = _val
    return jnp.logical_and(cond_fun(val), it <= maxiter - 1)

  def _body_fun(_val):
    it, val = _val
    val = body_fun(val)
    return it+1, val

  return jax.lax.while_loop(_cond_fun, _body_fun, (0, init_val))[1]


def while_loop(cond_fun, body_fun, init_val, maxiter, unroll=False, jit=False):
  """A while loop with a bounded number of iterations."""

  if unroll:
    if jit:
      fun = _while_loop_scan
    else:
      fun = _while_loop_python
  else:
    if jit:
      fun = _while_loop_lax
    else:
      raise ValueError("unroll=False and jit=False cannot be used together")

  if jit:
    fun = jax.jit(fun, static_argnums=(0, 1, 3))

  return fun(cond_fun, body_fun, init_val, maxiter)


# the jaxopt.loop module
loop = types.SimpleNamespace(while_loop=while_loop)


# jaxopt/_src/base.py
class OptStep(NamedTuple):
  params: Any
  state: Any


class Solver(abc.ABC):
  """Base class for solvers."""

  @abc.abstractmethod
  def run(self,
          init_params: Any,
          *args,
          **kwargs) -> OptStep:
    pass

  def attribute_names(self):
    return tuple(field.name for field in dataclasses.fields(self))

  def attribute_values(self):
    return tuple(getattr(self, name) for name in self.attribute_names())

  # Dataclasses need to set eq=False, otherwise inherited __hash__ is ignored.
  def __hash__(self):
    # We assume that the attribute values completely determine the solver.
    return hash(self.attribute_values())


class IterativeSolver(Solver):
  """Base class for iterative solvers."""

  def _get_loop_options(self):
    """Returns jit and unroll options based on user-provided attributes."""

    if self.jit == "auto":
      # We always jit unless verbose mode is enabled.
      jit = not self.verbose
    else:
      jit = self.jit

    if self.unroll == "auto":
      # We unroll when implicit diff is disabled or when jit is disabled.
      unroll = not getattr(self, "implicit_diff", True) or not jit
    else:
      unroll = self.unroll

    return jit, unroll

  def _run(self,
           init_params: Any,
           *args,
           **kwargs) -> OptStep:

    def cond_fun(pair):
      _, state = pair
      if self.verbose:
        print(state.error)
      return state.error > self.tol

    def body_fun(pair):
      params, state = pair
      return self.update(params, state, *args, **kwargs)

    state = self.init_state(init_params, *args, **kwargs)

    if self.maxiter == 0:
      return OptStep(params=init_params, state=state)

    # We unroll the very first iteration. This allows `init_val` and `body_fun`
    # below to have the same output type, which is a requirement of
    # lax.while_loop and lax.scan.
    opt_step = self.update(init_params, state, *args, **kwargs)

    jit, unroll = self._get_loop_options()

    return loop.while_loop(cond_fun=cond_fun, body_fun=body_fun,  # expect: JIT301
                           init_val=opt_step, maxiter=self.maxiter - 1, jit=jit,
                           unroll=unroll)

  def run(self,
          init_params: Any,
          *args,
          **kwargs) -> OptStep:
    """Runs the optimization loop."""
    run = self._run
    return run(init_params, *args, **kwargs)


# jaxopt/_src/fixed_point_iteration.py
class FixedPointState(NamedTuple):
  iter_num: int
  error: float
  aux: Any


@dataclass(eq=False)
class FixedPointIteration(IterativeSolver):
  """Fixed point iteration method."""
  fixed_point_fun: Callable
  maxiter: int = 100
  tol: float = 1e-5
  has_aux: bool = False
  verbose: bool = False
  implicit_diff: bool = True
  implicit_diff_solve: Optional[Callable] = None
  jit: AutoOrBoolean = "auto"
  unroll: AutoOrBoolean = "auto"

  def init_state(self,
                 init_params,
                 *args,
                 **kwargs) -> FixedPointState:
    return FixedPointState(iter_num=jnp.asarray(0),
                           error=jnp.asarray(jnp.inf),
                           aux=None)

  def update(self,
             params: Any,
             state: NamedTuple,
             *args,
             **kwargs) -> OptStep:
    next_params, aux = self._fun(params, *args, **kwargs)
    error = tree_l2_norm(tree_sub(next_params, params))
    next_state = FixedPointState(iter_num=state.iter_num + 1,
                                 error=error,
                                 aux=aux)
    return OptStep(params=next_params, state=next_state)

  def __post_init__(self):
    if self.has_aux:
      self._fun = self.fixed_point_fun
    else:
      self._fun = lambda *a, **kw: (self.fixed_point_fun(*a, **kw), None)


if __name__ == "__main__":
  import jax.monitoring

  compiles = []
  jax.monitoring.register_event_duration_secs_listener(
      lambda event, _secs, **_kw: compiles.append(event)
      if event == "/jax/core/compile/backend_compile_duration" else None
  )

  def T(x, theta):
    return 0.5 * x + theta

  solver = FixedPointIteration(fixed_point_fun=T, maxiter=50, implicit_diff=False)
  x0 = jnp.zeros(3)
  out = solver.run(x0, jnp.ones(3))
  assert jnp.allclose(out.params, 2.0, atol=1e-4), out.params
  thetas = [t * jnp.ones(3) for t in (2.0, 3.0, 4.0)]
  before = len(compiles)
  for theta in thetas:
    solver.run(x0, theta)
  # observed: line 179 passes new local closures as jit's static arguments: three more
  #   runs of the same solver compile the loop three more times
  assert len(compiles) - before == 3, (before, len(compiles))
