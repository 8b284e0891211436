# source: https://github.com/jax-md/jax-md/blob/a722def5f2c30bd9dceb5fcc5c2a8d19f3cba2b6/jax_md/quantity.py
#   (volume, count_dof, kinetic_energy, temperature; high_precision_sum and
#   check_custom_simulation_type from jax_md/util.py at the same commit)
# observed on jax 0.10.2 CPU: runs clean under jit with a traced box and traced velocities:
#   `jnp.isscalar(box) or not box.ndim` and the `box.ndim == ...` tests read static ranks,
#   `momentum is not None` tests Python defaults, and count_dof sums static sizes into a
#   Python int. Added: imports, `CUSTOM_SIMULATION_TYPE = []` (util's registry, empty), the
#   jitted caller and its inputs.
# gap: exemption-vs-JAX
import functools
import operator
from typing import Any, Sequence, Union

import jax
import jax.numpy as jnp
from jax.tree_util import tree_map, tree_reduce

Array = jnp.ndarray
Box = Array
CUSTOM_SIMULATION_TYPE = []


def check_custom_simulation_type(x: Any) -> None:
  if type(x) in CUSTOM_SIMULATION_TYPE:
    raise ValueError()


def high_precision_sum(
  X: Array,
  axis: Union[Sequence[int], int] | None = None,
  keepdims: bool = False,
):
  """Sums over axes at 64-bit precision then casts back to original dtype."""
  if jnp.issubdtype(X.dtype, jnp.integer):
    dtyp = jnp.int64
  elif jnp.issubdtype(X.dtype, jnp.complexfloating):
    dtyp = jnp.complex128
  else:
    dtyp = jnp.float64

  return jnp.array(
    jnp.sum(X, axis=axis, dtype=dtyp, keepdims=keepdims), dtype=X.dtype
  )


@functools.singledispatch
def count_dof(position: Array) -> int:
  check_custom_simulation_type(position)
  return tree_reduce(lambda accum, x: accum + x.size, position, 0)


def volume(dimension: int, box: Box) -> Array:
  box = jnp.asarray(box)
  if jnp.isscalar(box) or not box.ndim:
    return box**dimension
  elif box.ndim == 1:
    return jnp.prod(box)
  elif box.ndim == 2:
    return jnp.linalg.det(box)
  raise ValueError(
    (f'Box must be either: a scalar, a vector, or a matrix. Found {box}.')
  )


def kinetic_energy(
  *unused_args,
  momentum: Array | None = None,
  velocity: Array | None = None,
  mass: Array | float = 1.0,
) -> Array | float:
  """Computes the kinetic energy of a system.

  To avoid ambiguity, either momentum or velocity must be passed explicitly
  as a keyword argument.

  Args:
    momentum: Array specifying the momentum of the system.
    velocity: Array specifying the velocity of the system.
    mass: Array specifying the mass of the constituents.

  Returns:
    The kinetic energy of the system.
  """
  if unused_args:
    raise ValueError(
      'To use the kinetic energy function, you must explicitly '
      'pass either momentum or velocity as a keyword argument.'
    )
  if momentum is not None and velocity is not None:
    raise ValueError(
      'To use the kinetic energy function, you must pass either'
      ' a momentum or a velocity.'
    )

  k = (lambda v, m: v**2 * m) if momentum is None else (lambda p, m: p**2 / m)
  q = velocity if momentum is None else momentum
  check_custom_simulation_type(q)

  ke = tree_map(lambda m, q: 0.5 * high_precision_sum(k(q, m)), mass, q)
  return tree_reduce(operator.add, ke, 0.0)


def temperature(
  *unused_args,
  momentum: Array | None = None,
  velocity: Array | None = None,
  mass: Array | float = 1.0,
) -> Array | float:
  """Computes the temperature of a system.

  To avoid ambiguity, either momentum or velocity must be passed explicitly
  as a keyword argument.

  Args:
    momentum: Array specifying the momentum of the system.
    velocity: Array specifying the velocity of the system.
    mass: Array specifying the mass of the constituents.

  Returns:
    The temperature of the system in units of the Boltzmann constant.
  """
  if unused_args:
    raise ValueError(
      'To use the kinetic energy function, you must explicitly '
      'pass either momentum or velocity as a keyword argument.'
    )
  if momentum is not None and velocity is not None:
    raise ValueError(
      'To use the kinetic energy function, you must pass either'
      ' a momentum or a velocity.'
    )

  t = (lambda v, m: v**2 * m) if momentum is None else (lambda p, m: p**2 / m)
  q = velocity if momentum is None else momentum
  check_custom_simulation_type(q)

  dof = count_dof(q)

  kT = tree_map(lambda m, q: high_precision_sum(t(q, m)) / dof, mass, q)
  return tree_reduce(operator.add, kT, 0.0)


@jax.jit
def box_volume_and_temperature(box, velocity, mass):
  return volume(3, box), temperature(velocity=velocity, mass=mass)


if __name__ == "__main__":
  import warnings

  warnings.simplefilter("ignore")  # float64 sums are truncated to float32 without x64
  v = jnp.ones((4, 3))
  for box in (jnp.asarray(2.0), jnp.full(3, 2.0), 2.0 * jnp.eye(3)):
    vol, kT = box_volume_and_temperature(box, v, 1.0)
    assert jnp.allclose(vol, 8.0) and jnp.allclose(kT, 1.0), (vol, kT)
