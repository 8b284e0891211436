# source: https://github.com/google/jaxopt/blob/131a7dab770b1c8fefdbe1b9770e3894cded87bc/tests/anderson_test.py
#   (test_rotation_map's rot, written with NumPy, as it stood before 09bda05 "Prevent
#   recompilation of loops in `solver.run` when executing without `jit`", which rewrote it
#   with jax.numpy; run with the solver code of 09bda05 itself: IterativeSolver._run,
#   loop.while_loop and FixedPointIteration from jaxopt/_src/base.py, loop.py and
#   fixed_point_iteration.py at 09bda05. Reduced: FixedPointIteration stands in for
#   AndersonAcceleration (both run through IterativeSolver._run; the solver is built with
#   implicit_diff=False, so run() is _run), tree_sub / tree_l2_norm written with
#   jax.tree_util.tree_map, a SimpleNamespace standing for the module jaxopt.loop; the test's
#   setup is kept as the __main__ block)
# observed on jax 0.10.2 CPU: the solver's arguments (theta, c) now travel in the carry of
#   the jitted loop, so inside the loop rot gets a traced theta and onp.cos(theta) raises
#   TracerArrayConversionError; the first, unrolled update outside the loop runs. (With the
#   solver before 09bda05, whose loop body closed over the arguments as constants, the same
#   rot runs 400 iterations.)
# gap: types
import abc
import dataclasses
import operator
import types
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, Optional, Union

import jax
import jax.numpy as jnp
import numpy as onp
import scipy.linalg
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
  """Base class for solvers.

  Note: subclasses of `Solver` which are also Python dataclasses must disable
  the generation of an `__eq__` method (`eq=False`) for compatibility with
  Python 3.7. Not doing so results in the generation of a `__hash__` method
  that clashes with JAX transformations when applied directly to methods of
  the class. This restriction will be lifted in the future when support for
  Python 3.7 is dropped and / or another solution is found.
  """

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

  def _cond_fun(self, inputs):
    _, state = inputs[0]
    if self.verbose:
      print(state.error)
    return state.error > self.tol

  def _body_fun(self, inputs):
    (params, state), (args, kwargs) = inputs
    return self.update(params, state, *args, **kwargs), (args, kwargs)

  def _run(self,
           init_params: Any,
           *args,
           **kwargs) -> OptStep:
    state = self.init_state(init_params, *args, **kwargs)

    if self.maxiter == 0:
      return OptStep(params=init_params, state=state)

    # We unroll the very first iteration. This allows `init_val` and `body_fun`
    # below to have the same output type, which is a requirement of
    # lax.while_loop and lax.scan.
    opt_step = self.update(init_params, state, *args, **kwargs)
    init_val = (opt_step, (args, kwargs))

    jit, unroll = self._get_loop_options()

    return loop.while_loop(cond_fun=self._cond_fun, body_fun=self._body_fun,
                           init_val=init_val, maxiter=self.maxiter - 1, jit=jit,
                           unroll=unroll)[0]

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
    def rot(x, theta, c):
      n = theta.shape[0]
      cosO, sinO = onp.cos(theta), onp.sin(theta)  # expect: JIT402
      first_row, second_row = onp.zeros(2*n), onp.zeros(2*n)
      first_row[0::2] = cosO  # tolerate: JIT402
      first_row[1::2] = -sinO  # tolerate: JIT402
      second_row[0::2] = sinO  # tolerate: JIT402
      second_row[1::2] = cosO  # tolerate: JIT402
      blocks = onp.stack([first_row, second_row], axis=0)
      blocks = onp.split(blocks, n, axis=1)
      M = jnp.array(scipy.linalg.block_diag(*blocks))
      return M @ (x - c) + c
    theta = jnp.pi / jnp.array([2, 3, 4, 5, 6, 1.27, 1.73])  # rotation angles
    c = jnp.arange(1,2*theta.shape[0]+1)  # rotation center
    key = jax.random.PRNGKey(0)
    x0 = jax.random.uniform(key, shape=(len(theta)*2,))
    tol = 1e-4
    aa = FixedPointIteration(rot, maxiter=400, tol=tol, implicit_diff=False)
    sol, state = aa.run(x0, theta, c)
