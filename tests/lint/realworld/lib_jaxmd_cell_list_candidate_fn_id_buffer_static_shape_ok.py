# source: https://github.com/jax-md/jax-md/blob/fe9747ff3511c8de49c06690a6c341ec4926a60a/jax_md/partition.py
#   (CellList, _cell_dimensions, _neighboring_cells, _shift_array and cell_list_candidate_fn
#   verbatim at commit fe9747f "Fix problems that arise from JITting functions with cl and
#   position as arguments", which jits cell_list_candidate_fn again on the cell list's
#   id_buffer with the position's shape static, as neighbor_fn then calls it; the function
#   is lifted out of neighbor_list, where it closes over nothing else. jax_md is not
#   installed: jax_md/dataclasses.py's dataclass and static_field are copied verbatim (the
#   standard module reached as std_dataclasses, under a namespace named dataclasses), util's
#   Array, f32 and i32 are stand-ins, stdlib logging stands in for absl's. The __main__
#   block stands in for two neighbor list allocations with the box of jax-md#249 given as
#   an array: a cell list with one particle is built twice (id_buffer filled by hand
#   instead of cell_list's sort) and its id_buffer passed with position.shape)
# observed on jax 0.10.2 CPU: runs clean: the cell list, whose static cell_size holds an
#   array, no longer reaches jit; the static argument is the hashable shape tuple, so the
#   second allocation reuses the compiled function.
# gap: static-hashability
import dataclasses as std_dataclasses
import logging
import types
from functools import partial, reduce
from operator import mul
from typing import Any, Callable, Dict, Generator, Tuple

import numpy as onp

from jax import jit
import jax
import jax.numpy as jnp

Array = Any  # stand-in for util.Array
f32 = jnp.float32  # stand-in for util.f32
i32 = jnp.int32  # stand-in for util.i32
i64 = jnp.int64
Box = Any


# jax_md/dataclasses.py, verbatim but for the name of the standard module
def dataclass(clz):
  """Create a class which can be passed to functional transformations.

  Jax transformations such as `jax.jit` and `jax.grad` require objects that are
  immutable and can be mapped over using the `jax.tree_util` methods.

  The `dataclass` decorator makes it easy to define custom classes that can be
  passed safely to Jax.

  Args:
    clz: the class that will be transformed by the decorator.
  Returns:
    The new class.
  """
  clz.set = lambda self, **kwargs: std_dataclasses.replace(self, **kwargs)
  data_clz = std_dataclasses.dataclass(frozen=True)(clz)
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


def static_field():
  return std_dataclasses.field(metadata={'static': True})


dataclasses = types.SimpleNamespace(dataclass=dataclass, static_field=static_field)


# jax_md/partition.py
@dataclasses.dataclass
class CellList:
  """Stores the spatial partition of a system into a cell list.

  See :meth:`cell_list` for details on the construction / specification.
  Cell list buffers all have a common shape, S, where
    * `S = [cell_count_x, cell_count_y, cell_capacity]`
    * `S = [cell_count_x, cell_count_y, cell_count_z, cell_capacity]`
  in two- and three-dimensions respectively. It is assumed that each cell has
  the same capacity.

  Attributes:
    position_buffer: An ndarray of floating point positions with shape
      `S + [spatial_dimension]`.
    id_buffer: An ndarray of int32 particle ids of shape `S`. Note that empty
      slots are specified by `id = N` where `N` is the number of particles in
      the system.
    named_buffer: A dictionary of ndarrays of shape `S + [...]`. This contains
      side data placed into the cell list.
    did_buffer_overflow: A boolean specifying whether or not the cell list
      exceeded the maximum allocated capacity.
    cell_capacity: An integer specifying the maximum capacity of each cell in
      the cell list.
    update_fn: A function that updates the cell list at a fixed capacity.
  """
  position_buffer: Array
  id_buffer: Array
  named_buffer: Dict[str, Array]

  did_buffer_overflow: Array

  cell_capacity: int = dataclasses.static_field()
  cell_size: float = dataclasses.static_field()

  update_fn: Callable[..., 'CellList'] = \
      dataclasses.static_field()

  def update(self, position: Array, **kwargs) -> 'CellList':
    cl_data = (self.cell_capacity, self.did_buffer_overflow, self.update_fn)
    return self.update_fn(position, cl_data, **kwargs)

  @property
  def kwarg_buffers(self):
    logging.warning('kwarg_buffers renamed to named_buffer. The name '
                    'kwarg_buffers will be depricated.')
    return self.named_buffer


def _cell_dimensions(spatial_dimension: int,
                     box_size: Box,
                     minimum_cell_size: float) -> Tuple[Box, Array, Array, int]:
  """Compute the number of cells-per-side and total number of cells in a box."""
  if isinstance(box_size, int) or isinstance(box_size, float):
    box_size = float(box_size)

  # NOTE(schsam): Should we auto-cast based on box_size? I can't imagine a case
  # in which the box_size would not be accurately represented by an f32.
  if (isinstance(box_size, onp.ndarray) and
      (box_size.dtype == i32 or box_size.dtype == i64)):
    box_size = float(box_size)

  cells_per_side = onp.floor(box_size / minimum_cell_size)
  cell_size = box_size / cells_per_side
  cells_per_side = onp.array(cells_per_side, dtype=i32)

  if isinstance(box_size, (onp.ndarray, jnp.ndarray)):
    if box_size.ndim == 1 or box_size.ndim == 2:
      assert box_size.size == spatial_dimension
      flat_cells_per_side = onp.reshape(cells_per_side, (-1,))
      for cells in flat_cells_per_side:
        if cells < 3:
          msg = ('Box must be at least 3x the size of the grid spacing in each '
                 'dimension.')
          raise ValueError(msg)
      cell_count = reduce(mul, flat_cells_per_side, 1)
    elif box_size.ndim == 0:
      cell_count = cells_per_side ** spatial_dimension
    else:
      raise ValueError(('Box must be either: a scalar, a vector, or a matrix. '
                        f'Found {box_size}.'))
  else:
    cell_count = cells_per_side ** spatial_dimension

  return box_size, cell_size, cells_per_side, int(cell_count)


def _neighboring_cells(dimension: int) -> Generator[onp.ndarray, None, None]:
  for dindex in onp.ndindex(*([3] * dimension)):
    yield onp.array(dindex, dtype=i32) - 1


def _shift_array(arr: Array, dindex: Array) -> Array:
  if len(dindex) == 2:
    dx, dy = dindex
    dz = 0
  elif len(dindex) == 3:
    dx, dy, dz = dindex

  if dx < 0:
    arr = jnp.concatenate((arr[1:], arr[:1]))
  elif dx > 0:
    arr = jnp.concatenate((arr[-1:], arr[:-1]))

  if dy < 0:
    arr = jnp.concatenate((arr[:, 1:], arr[:, :1]), axis=1)
  elif dy > 0:
    arr = jnp.concatenate((arr[:, -1:], arr[:, :-1]), axis=1)

  if dz < 0:
    arr = jnp.concatenate((arr[:, :, 1:], arr[:, :, :1]), axis=2)
  elif dz > 0:
    arr = jnp.concatenate((arr[:, :, -1:], arr[:, :, :-1]), axis=2)

  return arr


@partial(jit, static_argnums=1)
def cell_list_candidate_fn(cl_id_buffer, positionShape) -> Array:
  N, dim = positionShape

  idx = cl_id_buffer

  cell_idx = [idx]

  for dindex in _neighboring_cells(dim):
    if onp.all(dindex == 0):
      continue
    cell_idx += [_shift_array(idx, dindex)]

  cell_idx = jnp.concatenate(cell_idx, axis=-2)
  cell_idx = cell_idx[..., jnp.newaxis, :, :]
  cell_idx = jnp.broadcast_to(cell_idx, idx.shape[:-1] + cell_idx.shape[-2:])

  def copy_values_from_cell(value, cell_value, cell_id):
    scatter_indices = jnp.reshape(cell_id, (-1,))
    cell_value = jnp.reshape(cell_value, (-1,) + cell_value.shape[-2:])
    return value.at[scatter_indices].set(cell_value)

  neighbor_idx = jnp.zeros((N + 1,) + cell_idx.shape[-2:], i32)
  neighbor_idx = copy_values_from_cell(neighbor_idx, cell_idx, idx)
  return neighbor_idx[:-1, :, 0]



if __name__ == "__main__":
  # jax-md#249: pos = jnp.array([[0.0, 0.0]]), box_size = jnp.array([1.0, 1.0]), cell_size 0.1
  position = jnp.array([[0.0, 0.0]])
  box_size = jnp.array([1.0, 1.0])
  N, dim = position.shape
  capacity = 2

  def allocate_stand_in(position):
    _, cell_size, cells_per_side, _ = _cell_dimensions(dim, box_size, 0.1)
    cell_id = N * jnp.ones(tuple(cells_per_side) + (capacity, 1), dtype=i32)
    cell_id = cell_id.at[0, 0, 0, 0].set(0)
    return CellList(position_buffer=jnp.zeros(cell_id.shape[:-1] + (dim,)),
                    id_buffer=cell_id, named_buffer={},
                    did_buffer_overflow=jnp.zeros((), bool),
                    cell_capacity=capacity, cell_size=cell_size,
                    update_fn=None)

  cl = allocate_stand_in(position)
  first = cell_list_candidate_fn(cl.id_buffer, position.shape)
  cl = allocate_stand_in(position)
  second = cell_list_candidate_fn(cl.id_buffer, position.shape)
  assert (first == second).all()
  print(second.shape)
