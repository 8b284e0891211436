# source: https://github.com/ott-jax/ott/blob/28a2bf8e045131edfaf8208b1578e5d713b108d4/src/ott/tools/soft_sort.py
#   (soft_sort.quantile after pull request #408, "Fix not being able to jit the soft
#   quantile": the constant mask `odds` is built with NumPy)
# observed on jax 0.10.2 CPU: jax.jit(quantile, static_argnames="axis") runs clean; the
#   NumPy mask is concrete, so `out[odds]` has a static shape (3 quantiles per column).
#   ott is not installed: `transport_for_sort` (a Sinkhorn solve
#   from the squashed inputs to the target weights, returning a SinkhornOutput) is replaced
#   by a stand-in that runs a fixed number of log-domain Sinkhorn iterations and returns an
#   object with the same `apply(inputs, axis=0)`. `apply_on_axis` and `quantile` are kept
#   as the library wrote them; quantile's long docstring is cut. The driver is the test
#   the pull request adds (tests/tools/soft_sort_test.py, test_quantiles with jit=True).
# gap: omnistaging
import functools
from typing import Any, Callable, Optional, Tuple, Union

import jax
import jax.numpy as jnp
import numpy as np


class _StandInTransport:
  # stand-in for ott's SinkhornOutput: only `apply` is used by quantile
  def __init__(self, matrix):
    self.matrix = matrix

  def apply(self, inputs, axis=0):
    return self.matrix.T @ inputs if axis == 0 else self.matrix @ inputs


def transport_for_sort(
    inputs: jnp.ndarray,
    weights: Optional[jnp.ndarray] = None,
    target_weights: Optional[jnp.ndarray] = None,
    squashing_fun: Optional[Callable[[jnp.ndarray], jnp.ndarray]] = None,
    epsilon: float = 1e-2,
    **kwargs: Any,
):
  # stand-in for ott's transport_for_sort (PointCloud + LinearProblem + Sinkhorn)
  x = jnp.squeeze(inputs)
  x = jax.nn.sigmoid((x - jnp.mean(x)) / (jnp.std(x) + 1e-10))
  a = jnp.squeeze(weights)
  b = jnp.squeeze(target_weights)
  y = jnp.linspace(0.0, 1.0, b.shape[0])
  cost = (x[:, None] - y[None, :]) ** 2

  def body(_, fg):
    f, g = fg
    f = epsilon * jnp.log(a) - epsilon * jax.nn.logsumexp((g[None, :] - cost) / epsilon, axis=1)
    g = epsilon * jnp.log(b) - epsilon * jax.nn.logsumexp((f[:, None] - cost) / epsilon, axis=0)
    return f, g

  f, g = jax.lax.fori_loop(0, 300, body, (jnp.zeros(a.shape), jnp.zeros(b.shape)))
  return _StandInTransport(jnp.exp((f[:, None] + g[None, :] - cost) / epsilon))


def apply_on_axis(op, inputs, axis, *args, **kwargs: Any) -> jnp.ndarray:
  """Apply a differentiable operator on a given axis of the input.

  Args:
    op: a differentiable operator (can be ranks, quantile, etc.)
    inputs: Array of any shape.
    axis: the axis (int) or tuple of ints on which to apply the operator. If
      several axes are passed to the operator, those are merged as a single
      dimension.
    args: other positional arguments to the operator.
    kwargs: other positional arguments to the operator.

  Returns:
    An Array holding the output of the differentiable operator on the given
    axis.
  """
  op_inner = functools.partial(op, **kwargs)
  axis = (axis,) if isinstance(axis, int) else axis
  num_points = np.prod(np.array(inputs.shape)[(axis,)])
  permutation = np.arange(len(inputs.shape))
  axis = tuple(permutation[a] for a in axis)
  permutation = tuple(sorted(set(permutation) - set(axis)) + sorted(axis))
  inputs = jnp.transpose(inputs, permutation)

  batch_fn = jax.vmap(op_inner, in_axes=(0,) + (None,) * len(args))
  result = batch_fn(jnp.reshape(inputs, (-1, num_points)), *args)
  shrink = len(axis)
  result = jnp.reshape(result, inputs.shape[:-shrink] + result.shape[-1:])

  permutation = tuple(range(len(result.shape)))
  rank = len(result.shape) - 1
  axis = min(axis)
  permutation = permutation[:axis] + (rank,) + permutation[axis:-1]
  return jnp.transpose(result, permutation)


def quantile(
    inputs: jnp.ndarray,
    q: Optional[Union[float, jnp.ndarray]],
    axis: Union[int, Tuple[int, ...]] = -1,
    weight: Optional[Union[float, jnp.ndarray]] = None,
    **kwargs: Any,
) -> jnp.ndarray:
  r"""Apply the soft quantiles operator on the input tensor."""

  def _quantile(
      inputs: jnp.ndarray, q: float, weight: float, **kwargs
  ) -> jnp.ndarray:
    num_points = inputs.shape[0]
    q = jnp.array([0.2, 0.5, 0.8]) if q is None else jnp.atleast_1d(q)
    num_quantiles = q.shape[0]
    a = jnp.ones((num_points,)) / num_points
    idx = jnp.argsort(q)
    q = q[idx]

    extended_q = jnp.concatenate([jnp.array([0.0]), q, jnp.array([1.0])])
    filler_weights = extended_q[1:] - extended_q[:-1]
    safe_weight = 0.5 * jnp.concatenate([
        jnp.array([1.0 / num_quantiles]), filler_weights
    ])
    if weight is None:
      # Populate with other options.
      safe_weight = jnp.concatenate([
          safe_weight,
          jnp.array(
              [.02]
          ),  # reasonable mass per quantile for a small number of points
          jnp.array(
              [1.5 / num_points]
          ),  # this means each quantile would be ~ assigned 1.5 points.
      ])
    else:
      safe_weight = jnp.concatenate([safe_weight, jnp.atleast_1d(weight)])
    weight = jnp.min(safe_weight)
    weights = jnp.ones(filler_weights.shape) * weight

    # Takes into account quantile_width in the definition of weights
    shift = -jnp.ones(filler_weights.shape)
    shift = shift + 0.5 * (
        jax.nn.one_hot(0, num_quantiles + 1) +
        jax.nn.one_hot(num_quantiles, num_quantiles + 1)
    )
    filler_weights = filler_weights + weights * shift

    # Adds one more value to have tensors of the same shape to interleave them.
    quantile_weights = jnp.ones(num_quantiles + 1) * weights

    # Interleaves the filler_weights with the quantile weights.
    weights = jnp.reshape(
        jnp.stack([filler_weights, quantile_weights], axis=1), (-1,)
    )[:-1]

    ot = transport_for_sort(inputs, a, weights, **kwargs)
    out = 1.0 / weights * ot.apply(jnp.squeeze(inputs), axis=0)

    # Recover odd indices corresponding to the desired quantiles.
    odds = np.concatenate([
        np.zeros((num_quantiles + 1, 1), dtype=bool),
        np.ones((num_quantiles + 1, 1), dtype=bool)
    ],
                          axis=1).ravel()[:-1]
    return out[odds][idx]

  return apply_on_axis(_quantile, inputs, axis, q, weight, **kwargs)


if __name__ == "__main__":
  rng = jax.random.PRNGKey(0)
  inputs = jax.random.uniform(rng, (200, 2, 3))
  q = jnp.array([.1, .8, .4])
  quantile_fn = jax.jit(quantile, static_argnames="axis")
  m1 = quantile_fn(inputs, q=q, weight=None, axis=0)
  assert m1.shape == (3, 2, 3), m1.shape
  np.testing.assert_allclose(m1.mean(axis=[1, 2]), q, atol=5e-2)
