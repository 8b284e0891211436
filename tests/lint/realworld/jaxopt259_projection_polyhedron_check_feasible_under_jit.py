# source: https://github.com/google/jaxopt/issues/259 (projection_polyhedron as linked there,
#   jaxopt/_src/projection.py at fdaf31d7e369c0bcdf46705c86d068d56f0d3d90; "checks feasability
#   by default - this is not jittable")
# observed on jax 0.10.2 CPU: TracerBoolConversionError at the `if check_feasible and
#   state.status in [...]` line: under jit the OSQP status is a tracer, and `in` on a list
#   compares it and asks for its truth value. Added: the imports (OSQP/BoxOSQP from jaxopt
#   0.8.5) and a jitted caller with a small polyhedron (a box and one equality), using the
#   default check_feasible=True.
# gap: exemption-vs-JAX
# unverifiable: needs jaxopt, which the test extra does not install (verified when collected, on jax 0.10.2 with jaxopt installed)
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
  if check_feasible and state.status in [BoxOSQP.PRIMAL_INFEASIBLE, BoxOSQP.DUAL_INFEASIBLE]:  # expect: JIT101
    raise ValueError("The polyhedron is empty.")
  return kkt_sol.primal


@jax.jit
def project(x, A, b, G, h):
  return projection_polyhedron(x, (A, b, G, h))


A = jnp.ones((1, 3))
b = jnp.array([1.0])
G = jnp.concatenate([jnp.eye(3), -jnp.eye(3)])
h = jnp.concatenate([jnp.ones(3), jnp.zeros(3)])
project(jnp.array([0.5, 2.0, -1.0]), A, b, G, h)
