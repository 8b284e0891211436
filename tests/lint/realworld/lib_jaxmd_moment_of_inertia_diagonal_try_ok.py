# source: https://github.com/jax-md/jax-md/blob/8bbe142d8e57f7106030a9adc29dee30cd69d783/jax_md/rigid_body.py
#   (RigidBody, get_moment_of_inertia_diagonal and RigidPointUnion with its methods up to
#   mass, verbatim but for their long docstrings, at commit 8bbe142 "Fixed issue where jit
#   would fail to trace through moment of inertia diagonal check". jax_md is not installed:
#   `dataclasses.dataclass` stands in for jax_md.dataclasses.dataclass (a frozen dataclass
#   registered as a pytree), numpy's float32 for util.f32 (jnp.float32, whose array default
#   Python 3.11's dataclasses refuse), Array for util.Array. The __main__ block builds a 3d
#   two-point shape and calls shape.mass() under jax.jit and eagerly)
# observed on jax 0.10.2 CPU: runs clean: under jit the diagonal check raises
#   TracerBoolConversionError, a ConcretizationTypeError, which the try catches and logs;
#   eagerly the check runs on concrete values.
# gap: exemption-vs-JAX
import dataclasses as _dataclasses
from typing import Any, Optional, Union

from absl import logging

import jax
from jax import ops, vmap
import jax.numpy as jnp
import numpy as onp

Array = Any
Quaternion = Any
f32 = onp.float32


class dataclasses:  # stand-in for jax_md.dataclasses
  @staticmethod
  def dataclass(cls):
    return jax.tree_util.register_dataclass(_dataclasses.dataclass(frozen=True)(cls))


@dataclasses.dataclass
class RigidBody:
  """Defines a body described by a position and orientation."""

  center: Array
  orientation: Union[Array, Quaternion]

  def __getitem__(self, idx):
    return RigidBody(self.center[idx], self.orientation[idx])


def get_moment_of_inertia_diagonal(I: Array, eps=1e-5):
  """Raises a ValueError if the moment of inertia tensor is not diagonal."""
  I_diag = vmap(jnp.diag)(I)
  # NOTE: Here epsilon has to take into account numerical error from
  # diagonalization. Maybe there's a more systematic way to figure this
  # out. It might also be worth always trying to diagonalize at float64.
  # NOTE: This will not work if the moment of inertia tensor is not known
  # ahead of a JIT. Maybe worth removing this check and relying on the fact
  # that helper functions always diagonalize the moment of inertia.
  try:
    if jnp.any(jnp.abs(I - vmap(jnp.diag)(I_diag)) > eps):
      max_dev = jnp.max(jnp.abs(I - vmap(jnp.diag)(I_diag)))
      raise ValueError('Expected diagonal moment of inertia.'
                       f'Maximum deviation: {max_dev}. Tolerance: {eps}.')
  except jax.errors.ConcretizationTypeError:
    logging.info('Skipping moment of inertia diagonalization check inside of'
                 'JIT. Make sure your moment of inertia is diagonal.')
  return I_diag


@dataclasses.dataclass
class RigidPointUnion:
  """A rigid body made up of a collection of point-masses."""

  points: Array
  masses: Array
  point_count: Array
  point_offset: Array
  point_species: Optional[Array] = None
  point_radius: float = f32(0.5)

  def dimension(self) -> int:
    """Returns the spatial dimension of the shape."""
    return self.points.shape[-1]

  def _sum_over_shapes(self, x):
    shape_count = len(self.point_count)
    shape_idx = jnp.repeat(jnp.arange(shape_count), self.point_count,
                           total_repeat_length=len(self.points))
    return ops.segment_sum(x, shape_idx, shape_count,)

  def moment_of_inertia(self) -> Array:
    """Compute the moment of inertia for each shape in the collection."""
    ndim = self.dimension()
    dtype = self.points.dtype
    if ndim == 2:
      I_disk = 1 / 2 * self.point_radius ** 2
      @vmap
      def per_particle(point, mass):
        return mass * ((point[0] ** 2 + point[1] ** 2) + I_disk)
      return self._sum_over_shapes(per_particle(self.points, self.masses))
    elif ndim == 3:
      I_sphere = 2 / 5 * self.point_radius ** 2
      @vmap
      def per_particle(point, mass):
        Id = jnp.eye(3, dtype=dtype)
        diagonal = jnp.sum(point**2) * Id
        off_diagonal = point[:, None] * point[None, :]
        return mass * ((diagonal - off_diagonal) + Id * I_sphere)
      return self._sum_over_shapes(per_particle(self.points, self.masses))
    else:
      raise ValueError('Rigid bodies are only defined in two- and three-'
                       'dimensions.')

  def mass(self, shape_species: Optional[Array]=None) -> RigidBody:
    """Get a RigidBody with the mass and moment of inertia for each shape.

    Arguments:
      shape_species: An optional array of integers specifying a mixture of
        different shapes. If specified then the mass object will contain
        a mass and moment of inertia for each shape in the collection.
    """
    ndim = self.dimension()
    if ndim == 2:
      if shape_species is not None:
        return RigidBody(self._sum_over_shapes(self.masses)[shape_species],
                         self.moment_of_inertia()[shape_species])

      return RigidBody(self._sum_over_shapes(self.masses),
                       self.moment_of_inertia())
    elif ndim == 3:
      # In three-dimensions, we grab the diagonal of the moment of inertia
      # assuming (and checking) that it is properly diagonalized.
      I_diag = get_moment_of_inertia_diagonal(self.moment_of_inertia())
      if shape_species is not None:
        return RigidBody(self._sum_over_shapes(self.masses)[shape_species],
                         I_diag[shape_species])
      return RigidBody(self._sum_over_shapes(self.masses), I_diag)
    raise ValueError('Rigid bodies only defined for two- and three-dimensions.'
                     f' Found {ndim}.')


if __name__ == "__main__":
  shape = RigidPointUnion(
      points=jnp.array([[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]]),
      masses=jnp.array([1.0, 1.0]),
      point_count=jnp.array([2]),
      point_offset=jnp.array([0]))
  jitted = jax.jit(lambda s: s.mass())(shape)
  eager = shape.mass()
  assert jnp.allclose(jitted.orientation, eager.orientation)
  print(jitted)
