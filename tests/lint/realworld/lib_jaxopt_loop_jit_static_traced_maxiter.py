# source: https://github.com/google/jaxopt/blob/eb6e75dfee1d25cc2b206ad1410668c576bf6750/jaxopt/_src/loop.py
#   (the whole module verbatim, before commit ed1febe "avoid redundant jit of lax.while_loop
#   with static restriction"; my_pow is the caller of tests/loop_test.py at the same commit,
#   with unroll=False and jit=True. The __main__ block applies jax.jit to my_pow, which the
#   fixing commit names as what the static restriction forbade)
# observed on jax 0.10.2 CPU: ValueError "Non-hashable static arguments are not supported"
#   at `return fun(cond_fun, body_fun, init_val, maxiter)`: while_loop jits the lax
#   implementation with maxiter (argument 3) static, and under jax.jit(my_pow) maxiter is a
#   tracer, which cannot be hashed.
# gap: static-hashability
"""Loop utilities."""

import jax
import jax.numpy as jnp


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

  return fun(cond_fun, body_fun, init_val, maxiter)  # expect: JIT302


def my_pow(x, y):
  def body_fun(val):
    return val * x
  def cond_fun(val):
    return True
  return while_loop(cond_fun=cond_fun, body_fun=body_fun, init_val=1.0,
                    maxiter=y, unroll=False, jit=True)


if __name__ == "__main__":
  print(jax.jit(my_pow)(3.0, 4))
