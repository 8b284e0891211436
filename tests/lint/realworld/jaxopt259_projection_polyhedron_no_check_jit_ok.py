# source: https://github.com/google/jaxopt/issues/259 (projection_polyhedron as linked there,
#   jaxopt/_src/projection.py at fdaf31d7e369c0bcdf46705c86d068d56f0d3d90, called as its
#   docstring says for jit: "If False, the function is jit compiled")
# observed on jax 0.10.2 CPU: runs under jit with check_feasible=False bound before jitting:
#   `check_feasible and ...` short-circuits on the Python False, so the traced OSQP status is
#   never converted to bool. Added: the imports (OSQP/BoxOSQP from jaxopt 0.8.5) and a jitted
#   caller with a small polyhedron (a box and one equality).
# gap: exemption-vs-JAX
# unverifiable: needs jaxopt, which the test extra does not install (verified when collected, on jax 0.10.2 with jaxopt installed)
import functools
from typing import Tuple

import jax
import jax.numpy as jnp
from jaxopt import BoxOSQP, OSQP


def projection_polyhedron(x: jnp.ndarray, hyperparams: Tuple,
                          check_feasible=True) -> jnp.ndarray:
  r"""Projection onto a polyhedron:

  .. math::

    \underset{y}{\text{argmin}} ~ ||x - y||_2^2 \quad \textrm{subject to} \quad
    A y = b, G y \le h

  Args:
    x: pytree to project.
    hyperparams: tuple ``hyperparams = (A, b, G, h)``, where ``A`` is a matrix,
      ``b`` is a vector, ``G`` is a matrix and ``h`` is a vector.
    check_feasible: if True (default: True) check the non emptyness of the polyhedron,
      which disables jit compilation. If False, the function is jit compiled.

  Returns:
    output array, with the same shape as ``x``.
  """
  # todo: support matvecs for A and G
  A, b, G, h = hyperparams
  matvec_Q = lambda _, vec: vec
  osqp = OSQP(matvec_Q=matvec_Q, check_primal_dual_infeasability=check_feasible)
  # check feasability by default; currently there is no way to return the info to the user inside @jit.
  hyperparams = dict(params_obj=(None, -x), params_eq=(A, b), params_ineq=(G, h))
  kkt_sol, state = osqp.run(**hyperparams)
  if check_feasible and state.status in [BoxOSQP.PRIMAL_INFEASIBLE, BoxOSQP.DUAL_INFEASIBLE]:
    raise ValueError("The polyhedron is empty.")
  return kkt_sol.primal


project = jax.jit(functools.partial(projection_polyhedron, check_feasible=False))


if __name__ == "__main__":
  A = jnp.ones((1, 3))
  b = jnp.array([1.0])
  G = jnp.concatenate([jnp.eye(3), -jnp.eye(3)])
  h = jnp.concatenate([jnp.ones(3), jnp.zeros(3)])
  p = project(jnp.array([0.5, 2.0, -1.0]), (A, b, G, h))
  assert abs(float(p.sum()) - 1.0) < 1e-2, p
