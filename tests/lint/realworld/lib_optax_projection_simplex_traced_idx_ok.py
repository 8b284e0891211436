# source: https://github.com/google-deepmind/optax/blob/v0.2.8/optax/projections/_projections.py
#   (_projection_unit_simplex, its custom JVP and projection_simplex, optax 0.2.8 as released;
#   docstring shortened)
# observed on jax 0.10.2 CPU: runs clean under jit and under jit of grad: the support size
#   `idx` is a tracer (jnp.count_nonzero), used only as an index into a JAX array and as a
#   divisor; the array sizes come from `values.shape[0]`, which is static.
# gap: types
from typing import Any

import jax
import jax.numpy as jnp
from jax import flatten_util


@jax.custom_jvp
def _projection_unit_simplex(values: jax.typing.ArrayLike) -> jax.Array:
  """Projection onto the unit simplex."""
  s = 1
  n_features = values.shape[0]  # pytype: disable=attribute-error  # jax-arraylike # noqa: E501
  u = jnp.sort(values)[::-1]
  cumsum_u = jnp.cumsum(u)
  ind = jnp.arange(n_features) + 1
  cond = s / ind + (u - cumsum_u / ind) > 0
  idx = jnp.count_nonzero(cond)
  return jax.nn.relu(s / idx + (values - cumsum_u[idx - 1] / idx))


@_projection_unit_simplex.defjvp
def _projection_unit_simplex_jvp(
    primals: list[jax.typing.ArrayLike], tangents: list[jax.typing.ArrayLike]
) -> tuple[jax.Array, jax.Array]:
  (values,) = primals
  (values_dot,) = tangents
  primal_out = _projection_unit_simplex(values)
  supp = primal_out > 0
  card = jnp.count_nonzero(supp)
  tangent_out = supp * values_dot - (jnp.dot(supp, values_dot) / card) * supp
  return primal_out, tangent_out


def projection_simplex(tree: Any, scale: jax.typing.ArrayLike = 1) -> Any:
  r"""Projection onto a simplex."""
  values, unravel_fn = flatten_util.ravel_pytree(tree)
  new_values = scale * _projection_unit_simplex(values / scale)
  return unravel_fn(new_values)


if __name__ == "__main__":
    data = {"w": jnp.array([2.5, 3.2]), "b": jnp.array(0.5)}
    out = jax.jit(projection_simplex)(data)
    print(out, sum(jax.tree.leaves(jax.tree.map(jnp.sum, out))))
    loss = lambda t: jnp.sum(projection_simplex(t)["w"] ** 2)
    print(jax.jit(jax.grad(loss))(data))
