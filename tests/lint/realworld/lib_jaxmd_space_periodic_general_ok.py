# source: https://github.com/jax-md/jax-md/blob/a41c7d19f6468f4e5263c32c12c9ed6cba26ebff/jax_md/space.py
#   (inverse, raw_transform, transform with its custom JVP, pairwise_displacement,
#   periodic_displacement, square_distance, distance, periodic_shift, periodic_general,
#   metric and map_product, verbatim but for periodic_general's long docstring; safe_mask,
#   f32 and Array from jax_md/util.py at the same commit. The __main__ block computes a
#   soft-sphere energy and its forces in a triclinic box under jax.jit, with the box a
#   traced argument given as `box=` (fractional coordinates), takes one shift step, and
#   computes real-coordinate distances with a traced box, whose inverse is taken in the
#   trace)
# observed on jax 0.10.2 CPU: runs clean: every Python test in these functions is on a
#   keyword's presence, a static flag or a shape (`jnp.size(box) == 1`, `jnp.ndim(box)`,
#   `box.ndim`, `len(Ra.shape)`), which jit keeps concrete for a traced box.
# gap: exemption-vs-JAX
import functools

import jax
from jax import custom_jvp, vmap
import jax.numpy as jnp

Array = jnp.ndarray
Box = Array
f32 = jnp.float32


def safe_mask(mask, fn, operand, placeholder=0):  # jax_md/util.py
  masked = jnp.where(mask, operand, 0)
  return jnp.where(mask, fn(masked), placeholder)


def inverse(box: Box) -> Array:
  """Compute the inverse of an affine transformation."""
  box = jnp.asarray(box)
  if jnp.isscalar(box) or box.size == 1:
    return 1 / box
  elif box.ndim == 1:
    return 1 / box
  elif box.ndim == 2:
    return jnp.linalg.inv(box)
  raise ValueError(
    (f'Box must be either: a scalar, a vector, or a matrix. Found {box}.')
  )


def _get_free_indices(n: int) -> str:
  return ''.join([chr(ord('a') + i) for i in range(n)])


def raw_transform(box: Box, R: Array) -> Array:
  """Apply an affine transformation to positions.

  See `periodic_general` for a description of the semantics of `box`.

  Args:
    box: An affine transformation described in `periodic_general`.
    R: Array of positions. Should have  shape `(..., spatial_dimension)`.

  Returns:
    A transformed array positions of shape `(..., spatial_dimension)`.
  """
  if jnp.isscalar(box) or jnp.size(box) == 1:
    return R * box
  elif jnp.ndim(box) == 1:
    indices = _get_free_indices(R.ndim - 1) + 'i'
    return jnp.einsum(f'i,{indices}->{indices}', box, R)
  elif jnp.ndim(box) == 2:
    free_indices = _get_free_indices(R.ndim - 1)
    left_indices = free_indices + 'j'
    right_indices = free_indices + 'i'
    return jnp.einsum(f'ij,{left_indices}->{right_indices}', box, R)
  raise ValueError(
    (f'Box must be either: a scalar, a vector, or a matrix. Found {box}.')
  )


@custom_jvp
def transform(box: Box, R: Array) -> Array:
  """Apply an affine transformation to positions.

  See `periodic_general` for a description of the semantics of `box`.

  Args:
    box: An affine transformation described in `periodic_general`.
    R: Array of positions. Should have  shape `(..., spatial_dimension)`.

  Returns:
    A transformed array positions of shape `(..., spatial_dimension)`.
  """
  return raw_transform(box, R)


@transform.defjvp
def transform_jvp(primals, tangents):
  """Custom JVP for transform that preserves gradient coordinate system.

  This JVP causes gradients to flow through unchanged (dR passes through
  without being multiplied by box). As a result:

  - Forward: R_real = transform(box, R) = R @ box.T
  - Backward: dE/dR = dE/dR_real (real-space gradient, not dE/dR_real @ box.T)

  This means jax.grad(energy)(R_frac) returns real-space forces in energy/distance,
  even when R_frac is in fractional coordinates.
  """
  box, R = primals
  dbox, dR = tangents
  return (transform(box, R), dR + transform(dbox, R))


def pairwise_displacement(Ra: Array, Rb: Array) -> Array:
  """Compute a matrix of pairwise displacements given two sets of positions.

  Args:
    Ra: Vector of positions; `ndarray(shape=[spatial_dim])`.
    Rb: Vector of positions; `ndarray(shape=[spatial_dim])`.

  Returns:
    Matrix of displacements; `ndarray(shape=[spatial_dim])`.
  """
  if len(Ra.shape) != 1:
    msg = (
      'Can only compute displacements between vectors. To compute '
      'displacements between sets of vectors use vmap or TODO.'
    )
    raise ValueError(msg)

  if Ra.shape != Rb.shape:
    msg = 'Can only compute displacement between vectors of equal dimension.'
    raise ValueError(msg)

  return Ra - Rb


def periodic_displacement(side: Box, dR: Array) -> Array:
  """Wraps displacement vectors into a hypercube.

  Args:
    side: Specification of hypercube size. Either,
      (a) float if all sides have equal length.
      (b) ndarray(spatial_dim) if sides have different lengths.
    dR: Matrix of displacements; `ndarray(shape=[..., spatial_dim])`.
  Returns:
    Matrix of wrapped displacements; `ndarray(shape=[..., spatial_dim])`.
  """
  return jnp.mod(dR + side * f32(0.5), side) - f32(0.5) * side


def square_distance(dR: Array) -> Array:
  """Computes square distances.

  Args:
    dR: Matrix of displacements; `ndarray(shape=[..., spatial_dim])`.
  Returns:
    Matrix of squared distances; `ndarray(shape=[...])`.
  """
  return jnp.sum(dR**2, axis=-1)


def distance(dR: Array) -> Array:
  """Computes distances.

  Args:
    dR: Matrix of displacements; `ndarray(shape=[..., spatial_dim])`.
  Returns:
    Matrix of distances; `ndarray(shape=[...])`.
  """
  dr = square_distance(dR)
  return safe_mask(dr > 0, jnp.sqrt, dr)


def periodic_shift(side: Box, R: Array, dR: Array) -> Array:
  """Shifts positions, wrapping them back within a periodic hypercube."""
  return jnp.mod(R + dR, side)


def periodic_general(
  box: Box, fractional_coordinates: bool = True, wrapped: bool = True
):
  r"""Periodic boundary conditions on a parallelepiped.

  Args:
    box: A `(spatial_dim, spatial_dim)` affine transformation.
    fractional_coordinates: A boolean specifying whether positions are stored
      in the parallelepiped or the unit cube.
    wrapped: A boolean specifying whether or not particle positions are
      remapped back into the box after each step
  Returns:
    `(displacement_fn, shift_fn)` tuple.
  """
  inv_box = inverse(box)

  def displacement_fn(Ra, Rb, perturbation=None, **kwargs):
    _box, _inv_box = box, inv_box

    if 'box' in kwargs:
      _box = kwargs['box']

      if not fractional_coordinates:
        _inv_box = inverse(_box)

    if 'new_box' in kwargs:
      _box = kwargs['new_box']

    if not fractional_coordinates:
      Ra = transform(_inv_box, Ra)
      Rb = transform(_inv_box, Rb)

    dR = periodic_displacement(f32(1.0), pairwise_displacement(Ra, Rb))
    dR = transform(_box, dR)

    if perturbation is not None:
      dR = raw_transform(perturbation, dR)

    return dR

  def u(R, dR):
    if wrapped:
      return periodic_shift(f32(1.0), R, dR)
    return R + dR

  def shift_fn(R, dR, **kwargs):
    if not fractional_coordinates and not wrapped:
      return R + dR

    _box, _inv_box = box, inv_box
    if 'box' in kwargs:
      _box = kwargs['box']
      _inv_box = inverse(_box)

    if 'new_box' in kwargs:
      _box = kwargs['new_box']

    dR = transform(_inv_box, dR)
    if not fractional_coordinates:
      R = transform(_inv_box, R)

    R = u(R, dR)

    if not fractional_coordinates:
      R = transform(_box, R)
    return R

  return displacement_fn, shift_fn


def metric(displacement):
  """Takes a displacement function and creates a metric."""
  return lambda Ra, Rb, **kwargs: distance(displacement(Ra, Rb, **kwargs))


def map_product(metric_or_displacement):
  """Vectorizes a metric or displacement function over all pairs."""
  return vmap(vmap(metric_or_displacement, (0, None), 0), (None, 0), 0)


if __name__ == "__main__":
  box = jnp.array([[4.0, 0.5, 0.0], [0.0, 4.0, 0.3], [0.0, 0.0, 4.0]])
  R = jax.random.uniform(jax.random.PRNGKey(0), (16, 3))
  displacement, shift = periodic_general(box)

  @jax.jit
  def energy(R, box):
    dr = map_product(metric(functools.partial(displacement, box=box)))(R, R)
    sigma = 1.5
    e = jnp.where(dr < sigma, 0.5 * (1.0 - dr / sigma) ** 2, 0.0)
    return 0.5 * jnp.sum(jnp.where(dr > 0, e, 0.0))

  force = jax.jit(lambda R, box: -jax.grad(energy)(R, box))
  step = jax.jit(lambda R, box: shift(R, 1e-2 * force(R, box), box=box))
  R_next = step(R, box)
  print(energy(R, box), energy(R_next, box))

  displacement_real, _ = periodic_general(box, fractional_coordinates=False)
  dist_real = jax.jit(lambda Ra, Rb, box: metric(displacement_real)(Ra, Rb, box=box))
  R_real = transform(box, R)
  print(dist_real(R_real[0], R_real[1], box), dist_real(R_real[0], R_real[1], 1.1 * box))
