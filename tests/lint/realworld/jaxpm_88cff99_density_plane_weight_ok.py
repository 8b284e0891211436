# source: https://github.com/DifferentiableUniverseInitiative/JaxPM/commit/88cff997367f85a5556fb6f60d727abd62f97601
#   (jaxpm/lensing.py and jaxpm/painting.py as that commit, "adds fix to make code
#   jittablel", leaves them: the particles outside the lens plane get weight 0 instead of
#   being removed with a boolean mask, and cic_paint_2d multiplies its kernel by the weight)
# observed on jax 0.10.2 CPU: density_plane runs under jax.jit over the particle positions
#   and gives the same plane as the eager call. Kept as JaxPM wrote density_plane and
#   cic_paint_2d. Added: gaussian_smoothing is a stand-in (jaxpm.utils is not reproduced;
#   it is not called with smoothing_sigma=None), the particle positions (a 16x16x32 grid),
#   and the __main__ block, which jits density_plane over the positions and the plane
#   centre with the mesh shape and plane resolution closed over. Left out: the commit's
#   stray `from tkinter import W` in painting.py.
# gap: other
import jax
import jax.numpy as jnp
import jax.lax as lax
import numpy as np


def gaussian_smoothing(im, sigma):
  # stand-in for jaxpm.utils.gaussian_smoothing (not used here)
  return im


def cic_paint_2d(mesh, positions, weight):
  """ Paints positions onto a 2d mesh
  mesh: [nx, ny]
  positions: [npart, 2]
  weight: [npart]
  """
  positions = jnp.expand_dims(positions, 1)
  floor = jnp.floor(positions)
  connection = jnp.array([[0, 0], [1., 0], [0., 1], [1., 1]])

  neighboor_coords = floor + connection
  kernel = 1. - jnp.abs(positions - neighboor_coords)
  kernel = kernel[..., 0] * kernel[..., 1] 
  if weight is not None:
    kernel = kernel * weight[...,jnp.newaxis]
  
  neighboor_coords = jnp.mod(neighboor_coords.reshape([-1,4,2]).astype('int32'), jnp.array(mesh.shape))

  dnums = jax.lax.ScatterDimensionNumbers(
    update_window_dims=(),
    inserted_window_dims=(0, 1),
    scatter_dims_to_operand_dims=(0, 1))
  mesh = lax.scatter_add(mesh, 
                         neighboor_coords, 
                         kernel.reshape([-1,4]),
                         dnums)
  return mesh


def density_plane(positions,
                  box_shape,
                  center,
                  width,
                  plane_resolution,
                  smoothing_sigma=None):
    """ Extacts a density plane from the simulation
    """
    nx, ny, nz = box_shape
    xy = positions[..., :2]
    d = positions[..., 2]

    # Apply 2d periodic conditions
    xy = jnp.mod(xy, nx)

    # Rescaling positions to target grid
    xy = xy / nx * plane_resolution

    # Selecting only particles that fall inside the volume of interest
    weight = jnp.where((d > (center - width / 2)) & (d <= (center + width / 2)), 1., 0.)
    # Painting density plane
    density_plane = cic_paint_2d(jnp.zeros([plane_resolution, plane_resolution]), xy, weight)

    # Apply density normalization
    density_plane = density_plane / ((nx / plane_resolution) *
                                     (ny / plane_resolution) * (width))

    # Apply Gaussian smoothing if requested
    if smoothing_sigma is not None:
        density_plane = gaussian_smoothing(density_plane, 
                                           smoothing_sigma)

    return density_plane


if __name__ == "__main__":
    nc = [16, 16, 32]
    particles = jnp.stack(jnp.meshgrid(*[jnp.arange(s) for s in nc]), axis=-1).reshape([-1, 3]).astype(jnp.float32)
    eager = density_plane(particles, nc, 8.0, width=4.0, plane_resolution=8)
    make_plane = jax.jit(lambda pos, center: density_plane(pos, nc, center, width=4.0, plane_resolution=8))
    jitted = make_plane(particles, 8.0)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(eager), rtol=1e-6)
    print(jitted.sum())
