# source: https://github.com/google-deepmind/optax/blob/v0.2.8/optax/_src/linear_algebra.py
#   (_normalize_tree, _power_iteration_cond_fun and power_iteration, optax 0.2.8 as
#   released; docstring shortened)
# observed on jax 0.10.2 CPU: runs clean under jit, with num_iters and error_tolerance
#   traced: the `if` tests are on callable(), `is None` and a static shape, and the
#   convergence test is the while_loop's cond result, combined with `~` and `&`.
# gap: exemption-vs-JAX
import functools
from typing import Callable, Optional, Union

import jax
import jax.numpy as jnp
from jax import lax
import optax.tree
from optax._src import base


def _normalize_tree(x):
  # divide by the L2 norm of the tree weights.
  return optax.tree.scale(1.0 / optax.tree.norm(x), x)


def _power_iteration_cond_fun(error_tolerance, num_iters, loop_vars):
  normalized_eigvec, unnormalized_eigvec, eig, iter_num = loop_vars
  residual = optax.tree.sub(
      unnormalized_eigvec, optax.tree.scale(eig, normalized_eigvec)
  )
  residual_norm = optax.tree.norm(residual)
  converged = jnp.abs(residual_norm / eig) < error_tolerance
  return ~converged & (iter_num < num_iters)


def power_iteration(
    matrix: Union[
        jax.typing.ArrayLike, Callable[[base.ArrayTree], base.ArrayTree]],
    *,
    v0: Optional[base.ArrayTree] = None,
    num_iters: jax.typing.ArrayLike = 100,
    error_tolerance: jax.typing.ArrayLike = 1e-6,
    precision: lax.Precision = lax.Precision.HIGHEST,
    key: Optional[base.PRNGKey] = None,
) -> tuple[jax.typing.ArrayLike, base.ArrayTree]:
  r"""Power iteration algorithm."""
  if callable(matrix):
    mvp = matrix
    if v0 is None:
      # v0 must be given as we don't know the underlying pytree structure.
      raise ValueError('v0 must be provided when `matrix` is a callable.')
  else:
    mvp = lambda v: jnp.matmul(matrix, v, precision=precision)
    if v0 is None:
      if key is None:
        key = jax.random.PRNGKey(0)
      # v0 is uniformly distributed in [-1, 1]
      v0 = jax.random.uniform(
          key,
          shape=matrix.shape[-1:],
          dtype=matrix.dtype,
          minval=-1.0,
          maxval=1.0,
      )

  v0 = _normalize_tree(v0)

  cond_fun = functools.partial(
      _power_iteration_cond_fun,
      error_tolerance,
      num_iters,
  )

  def _body_fun(loop_vars):
    _, z, _, iter_num = loop_vars
    eigvec = _normalize_tree(z)
    z = mvp(eigvec)
    eig = optax.tree.vdot(eigvec, z)
    return eigvec, z, eig, iter_num + 1

  init_vars = (v0, mvp(v0), jnp.asarray(0.0), jnp.asarray(0))
  _, unormalized_eigenvector, dominant_eigenvalue, _ = jax.lax.while_loop(
      cond_fun, _body_fun, init_vars
  )
  normalized_eigenvector = _normalize_tree(unormalized_eigenvector)
  return dominant_eigenvalue, normalized_eigenvector


if __name__ == "__main__":
    matrix = jnp.diag(jnp.array([3.0, 1.0, 0.5]))
    eig, _ = jax.jit(lambda m, n, tol: power_iteration(m, num_iters=n, error_tolerance=tol))(
        matrix, 200, 1e-6)
    assert abs(float(eig) - 3.0) < 1e-3, eig
    eig2, _ = jax.jit(lambda v: power_iteration(lambda u: matrix @ u, v0=v))(jnp.ones(3))
    assert abs(float(eig2) - 3.0) < 1e-3, eig2
