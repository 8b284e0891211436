# source: https://github.com/jax-md/jax-md/blob/8a5f8e4b1a5616a3c71b7fb8ab9cbc27cf2c592f/jax_md/rigid_body.py
#   (RigidBodyShape, transform_to_diagonal_frame, rigid_body_shape and the tetrahedron shape,
#   verbatim, before commit 9b03d7e "Updated FIRE to be compatible with rigid bodies. Fixed
#   issue with shape not being jittable.", which gives `jnp.repeat` in sum_over_shapes a
#   `total_repeat_length`. Cut from RigidBodyShape: mass() (its 3d diagonal check is the
#   subject of lib_jaxmd_point_union_mass_diagonal_check_if.py), radius() and __getitem__.
#   jax_md is not installed: its dataclasses.dataclass is copied from jax_md/dataclasses.py
#   at the same commit, numpy's float32 stands for util.f32 (jnp.float32, whose array
#   default Python 3.11's dataclasses refuse) and Any for util.Array. The __main__ block
#   is the commit's test_jit_shape reduced to the shape: a jitted function builds the shape
#   from the tetrahedron's points and masses, and returns its moment of inertia instead of
#   a rigid-body energy)
# observed on jax 0.10.2 CPU: ConcretizationTypeError at jnp.repeat in sum_over_shapes:
#   rigid_body_shape sets point_count=jnp.array([len(points)]), a tracer under jit, and
#   transform_to_diagonal_frame sums the moment of inertia over shapes with it as repeats.
# gap: omnistaging
import dataclasses as _dataclasses
from typing import Any, Optional

import jax
from jax import ops, vmap
import jax.numpy as jnp
import numpy as onp

Array = Any
f32 = onp.float32


class dataclasses:  # jax_md/dataclasses.py at the same commit
  @staticmethod
  def dataclass(clz):
    clz.set = lambda self, **kwargs: _dataclasses.replace(self, **kwargs)
    data_clz = _dataclasses.dataclass(frozen=True)(clz)
    meta_fields = []
    data_fields = []
    for name, field_info in data_clz.__dataclass_fields__.items():
      is_static = field_info.metadata.get('static', False)
      if is_static:
        meta_fields.append(name)
      else:
        data_fields.append(name)

    def iterate_clz(x):
      meta = tuple(getattr(x, name) for name in meta_fields)
      data = tuple(getattr(x, name) for name in data_fields)
      return data, meta

    def clz_from_iterable(meta, data):
      meta_args = tuple(zip(meta_fields, meta))
      data_args = tuple(zip(data_fields, data))
      kwargs = dict(meta_args + data_args)
      return data_clz(**kwargs)

    jax.tree_util.register_pytree_node(data_clz,
                                       iterate_clz,
                                       clz_from_iterable)

    return data_clz


@dataclasses.dataclass
class RigidBodyShape:
  points: Array        # (total_points, spatial_dim)
  masses: Array        # (total_points,)
  point_count: Array   # (number_of_body_types,)
  point_offset: Array  # (number_of_body_types,)
  point_species: Optional[Array] = None  # (total_points,)
  point_radius: float = f32(0.5)

  def dimension(self):
    return self.points.shape[-1]

  def sum_over_shapes(self, x):
    shape_count = len(self.point_count)
    shape_idx = jnp.repeat(jnp.arange(shape_count), self.point_count)  # expect: JIT404
    return ops.segment_sum(x, shape_idx, shape_count)

  def moment_of_inertia(self):
    ndim = self.dimension()
    if ndim == 2:
      I_disk = 1 / 2 * self.point_radius ** 2
      @vmap
      def per_particle(point, mass):
        return mass * (point[0] ** 2 + point[1] ** 2) + I_disk
      return self.sum_over_shapes(per_particle(self.points, self.masses))
    elif ndim == 3:
      I_sphere = 2 / 5 * self.point_radius ** 2
      @vmap
      def per_particle(point, mass):
        diagonal = jnp.linalg.norm(point) ** 2 * jnp.eye(point.shape[-1], dtype=point.dtype)
        off_diagonal = point[:, None] * point[None, :]
        return mass * ((diagonal - off_diagonal) + jnp.eye(3, dtype=point.dtype) * I_sphere)
      return self.sum_over_shapes(per_particle(self.points, self.masses))
    else:
      raise ValueError('Rigid bodies are only defined in two- and three-'
                       'dimensions.')


def transform_to_diagonal_frame(shape: RigidBodyShape) -> RigidBodyShape:
  ndim = shape.dimension()
  assert len(shape.point_count) == 1

  if ndim == 2:
    total_mass = shape.sum_over_shapes(shape.masses[:, None] * shape.points)
    com = total_mass / shape.point_count[:, None]
    return shape.set(points=shape.points - com)
  elif ndim == 3:
    total_mass = jnp.sum(shape.masses)
    I, = shape.moment_of_inertia()

    I_diag, U = jnp.linalg.eigh(I)

    points = jnp.einsum('ni,ij->nj', shape.points, U)
    return RigidBodyShape(points,
                          shape.masses,
                          shape.point_count,
                          shape.point_offset)

  raise ValueError('Rigid bodies only defined for two- or three-dimensions'
                   f' found shape of dimension={ndim}.')


def rigid_body_shape(points: Array, masses: Array) -> RigidBodyShape:
  if jnp.isscalar(masses) or masses.shape == ():
    masses = masses * jnp.ones((len(points),), points.dtype)
  shape = RigidBodyShape(points=points,
                         masses=masses,
                         point_count=jnp.array([len(points)]),
                         point_offset=jnp.array([0]))
  return transform_to_diagonal_frame(shape)


# 3D Shapes
tetrahedron = rigid_body_shape(
  onp.array([[1.0, 1.0, 1.0],
             [ 1.0, -1.0, -1.0],
             [-1.0,  1.0, -1.0],
             [-1.0, -1.0, 1.0]], f32) * f32(0.5),
    f32(1.0))


if __name__ == "__main__":
  @jax.jit
  def compute_inertia(points, masses):
    shape = rigid_body_shape(points, masses)
    return shape.moment_of_inertia()

  s = tetrahedron
  print(compute_inertia(s.points, s.masses))
