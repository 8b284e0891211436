# source: https://github.com/google/jaxopt/blob/2de13bf01fd29e22862236a0d869f2b14e1629d4/jaxopt/_src/projection.py
#   (_projection_unit_simplex with its custom JVP, and projection_simplex, verbatim; the
#   __main__ block projects a vector onto the probability simplex under jax.jit, a batch of
#   them under jax.jit(jax.vmap(...)), and differentiates through the projection with
#   jax.jacobian under jit)
# observed on jax 0.10.2 CPU: runs clean: the support size idx = jnp.count_nonzero(cond) is
#   a tracer, but it is only divided by and used as an index (cumsum_u[idx - 1]), never as a
#   shape or a Python bool, so the projection traces once and sums to one.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp


@jax.custom_jvp
def _projection_unit_simplex(x: jnp.ndarray) -> jnp.ndarray:
  """Projection onto the unit simplex."""
  s = 1.0
  n_features = x.shape[0]
  u = jnp.sort(x)[::-1]
  cumsum_u = jnp.cumsum(u)
  ind = jnp.arange(n_features) + 1
  cond = s / ind + (u - cumsum_u / ind) > 0
  idx = jnp.count_nonzero(cond)
  return jax.nn.relu(s / idx + (x - cumsum_u[idx - 1] / idx))


@_projection_unit_simplex.defjvp
def _projection_unit_simplex_jvp(primals, tangents):
  x, = primals
  x_dot, = tangents
  primal_out = _projection_unit_simplex(x)
  supp = primal_out > 0
  card = jnp.count_nonzero(supp)
  tangent_out = supp * x_dot - (jnp.dot(supp, x_dot) / card) * supp
  return primal_out, tangent_out


def projection_simplex(x: jnp.ndarray, value: float = 1.0) -> jnp.ndarray:
  r"""Projection onto a simplex:

  .. math::

    \underset{p}{\text{argmin}} ~ ||x - p||_2^2 \quad \textrm{subject to} \quad
    p \ge 0, p^\top 1 = \text{value}

  By default, the projection is onto the probability simplex.

  Args:
    x: vector to project, an array of shape (n,).
    value: value p should sum to (default: 1.0).
  Returns:
    projected vector, an array with the same shape as ``x``.
  """
  if value is None:
    value = 1.0
  return value * _projection_unit_simplex(x / value)


if __name__ == "__main__":
  x = jnp.array([0.5, 1.2, -0.3, 0.9])
  p = jax.jit(projection_simplex)(x)
  assert jnp.allclose(p.sum(), 1.0) and (p >= 0).all(), p
  batch = jnp.stack([x, -x, 2 * x])
  P = jax.jit(jax.vmap(projection_simplex))(batch)
  assert jnp.allclose(P.sum(axis=1), 1.0), P
  J = jax.jit(jax.jacobian(projection_simplex))(x)
  assert jnp.allclose(J.sum(axis=0), 0.0, atol=1e-6), J
  print(p, P, J, sep="\n")
