# source: https://github.com/google/jaxopt/blob/a788407df009586fa98d2928029e967a5fe78b43/jaxopt/_src/base.py
#   (IterativeSolver._cond_fun after a788407 "jittable verbose"; _run, _get_loop_options,
#   _make_zero_step and _where from the same file, loop.while_loop and _while_loop_lax from
#   jaxopt/_src/loop.py and FixedPointIteration from jaxopt/_src/fixed_point_iteration.py at
#   the same commit. Reduced: run() without the implicit-diff decorator (the solver is built
#   with implicit_diff=False), the scan and Python loops of loop.while_loop left out (the
#   solver is built with unroll=False), tree_sub / tree_l2_norm written with
#   jax.tree_util.tree_map for jaxopt.tree_util, a SimpleNamespace standing for the module
#   jaxopt.loop, NUM_EVAL_DTYPE = jnp.int32, and the __main__ block, which builds the solver
#   with jit=True, verbose=True as the commit's test_jit_with_verbose does)
# observed on jax 0.10.2 CPU: jax.debug.print inside the lax.while_loop condition prints the
#   error of every evaluation of the condition, with its value, under jit=True.
# gap: other
import dataclasses
import functools
import operator
import types
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, Optional, Union

import jax
import jax.numpy as jnp
from jax import tree_util
from jax.tree_util import tree_map

AutoOrBoolean = Union[str, bool]
NUM_EVAL_DTYPE = jnp.int32


def tree_sub(tree_x, tree_y):
  return tree_map(operator.sub, tree_x, tree_y)


def tree_l2_norm(tree_x):
  return jnp.sqrt(sum(jnp.sum(jnp.square(x)) for x in jax.tree_util.tree_leaves(tree_x)))


# jaxopt/_src/loop.py
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
    raise NotImplementedError("left out of this reduction")
  else:
    if jit:
      fun = _while_loop_lax
    else:
      raise ValueError("unroll=False and jit=False cannot be used together")

  if jit and fun is not _while_loop_lax:
    # jit of a lax while_loop is redundant, and this jit would only
    # constrain maxiter to be static where it is not required.
    fun = jax.jit(fun, static_argnums=(0, 1, 3))

  return fun(cond_fun, body_fun, init_val, maxiter)


# the jaxopt.loop module
loop = types.SimpleNamespace(while_loop=while_loop)


# jaxopt/_src/base.py
class OptStep(NamedTuple):
  params: Any
  state: Any


class IterativeSolver:
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

  def _cond_fun(self, inputs):
    _, state = inputs[0]
    if self.verbose:
      name = self.__class__.__name__
      jax.debug.print("Sovler: %s, Error: {error}" % name, error=state.error)
    return state.error > self.tol

  def _body_fun(self, inputs):
    (params, state), (args, kwargs) = inputs
    return self.update(params, state, *args, **kwargs), (args, kwargs)

  def _make_zero_step(self, init_params, state) -> OptStep:
    if isinstance(init_params, OptStep):
      return OptStep(params=init_params.params, state=state)
    else:
      return OptStep(params=init_params, state=state)

  def _run(self,
           init_params: Any,
           *args,
           **kwargs) -> OptStep:
    state = self.init_state(init_params, *args, **kwargs)

    zero_step = self._make_zero_step(init_params, state)

    opt_step = self.update(init_params, state, *args, **kwargs)
    init_val = (opt_step, (args, kwargs))

    jit, unroll = self._get_loop_options()

    many_step = loop.while_loop(
        cond_fun=self._cond_fun, body_fun=self._body_fun,
        init_val=init_val, maxiter=self.maxiter - 1, jit=jit,
        unroll=unroll)[0]

    return tree_util.tree_map(
        functools.partial(_where, self.maxiter == 0), zero_step, many_step,
        is_leaf=lambda x: x is None)  # state attributes can sometimes be None

  def run(self,
          init_params: Any,
          *args,
          **kwargs) -> OptStep:
    """Runs the optimization loop."""
    run = self._run
    return run(init_params, *args, **kwargs)


def _where(cond, x, y):
  if x is None: return y
  if y is None: return x
  return jnp.where(cond, x, y)


# jaxopt/_src/fixed_point_iteration.py
class FixedPointState(NamedTuple):
  iter_num: int
  error: float
  aux: Optional[Any] = None
  num_fun_eval: int = 0


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
                           aux=None,
                           num_fun_eval=jnp.asarray(0, NUM_EVAL_DTYPE)
                           )

  def update(self,
             params: Any,
             state: NamedTuple,
             *args,
             **kwargs) -> OptStep:
    next_params, aux = self._fun(params, *args, **kwargs)
    error = tree_l2_norm(tree_sub(next_params, params))
    next_state = FixedPointState(iter_num=state.iter_num + 1,
                                 error=error,
                                 aux=aux,
                                 num_fun_eval=state.num_fun_eval + 1)
    return OptStep(params=next_params, state=next_state)

  def __post_init__(self):
    if self.has_aux:
      self._fun = self.fixed_point_fun
    else:
      self._fun = lambda *a, **kw: (self.fixed_point_fun(*a, **kw), None)


if __name__ == "__main__":
  import contextlib
  import io

  def T(x, theta):
    return 0.5 * x + theta

  solver = FixedPointIteration(fixed_point_fun=T, maxiter=100, tol=1e-5, jit=True,
                               unroll=False, verbose=True, implicit_diff=False)
  out = io.StringIO()
  with contextlib.redirect_stdout(out):
    res = solver.run(jnp.zeros(3), jnp.ones(3))
  lines = [l for l in out.getvalue().splitlines() if "Error:" in l]
  assert int(res.state.iter_num) > 10, res.state.iter_num
  assert len(lines) >= int(res.state.iter_num) - 1, out.getvalue()
  assert "Tracer" not in out.getvalue()
