# source: https://github.com/sarafridov/plenoxels/blob/975d2619a75b4e6fadd8b72e9edbf30fdf7e559c/plenoxel.py
#   (the JAX Plenoxels renderer: ray/voxel intersection, trilinear and tricubic interpolation,
#   jittered samples and volumetric rendering; eval_sh from the same repository's sh.py)
# observed on jax 0.10.2 CPU: render_rays (jit with resolution, radius, harmonic_degree, jitter,
#   uniform, interpolation and nv static) traces the double vmap of the jitted
#   intersection_distances, whose static arguments arrive unbatched through in_axes None; the
#   Python branches on `uniform`, `jitter` and `interpolation` pick one sampler per static
#   value, and the jittered sampler draws from one key per ray. Rendering a small grid with
#   trilinear, tricubic, constant and jittered sampling, and its value_and_grad as
#   plenoptimize.py takes it, all run. Kept: the rendering functions as written; changed:
#   `jax.partial` to functools.partial and jnp.clip's removed `a_min=`/`a_max=` to
#   `min=`/`max=`; left out: the grid pruning/splitting/saving helpers and the unused
#   matplotlib/tqdm/jax.ops imports; added: eval_sh and its constants from sh.py, and the
#   __main__ block (an 8^3 grid, a batch of 6 rays, one key per ray as plenoptimize.py makes them).
# gap: exemption-vs-JAX
import functools

import jax
import jax.numpy as jnp
from jax import lax
import numpy as np


# --- added: from sh.py ---
C0 = 0.28209479177387814
C1 = 0.4886025119029199
C2 = [
    1.0925484305920792,
    -1.0925484305920792,
    0.31539156525252005,
    -1.0925484305920792,
    0.5462742152960396
]
C3 = [
    -0.5900435899266435,
    2.890611442640554,
    -0.4570457994644658,
    0.3731763325901154,
    -0.4570457994644658,
    1.445305721320277,
    -0.5900435899266435
]
C4 = [
    2.5033429417967046,
    -1.7701307697799304,
    0.9461746957575601,
    -0.6690465435572892,
    0.10578554691520431,
    -0.6690465435572892,
    0.47308734787878004,
    -1.7701307697799304,
    0.6258357354491761,
]

@functools.partial(jax.jit, static_argnums=(0,))
def eval_sh(deg, sh, dirs):
    """
    Evaluate spherical harmonics at unit directions
    using hardcoded SH polynomials.
    ... Can be 0 or more batch dimensions.
    :param deg: int SH max degree. Currently, 0-4 supported
    :param sh: SH coeffs (..., C, (max degree + 1) ** 2)
    :param dirs: unit directions (..., 3)
    :return: (..., C)
    """
    assert deg <= 4 and deg >= 0
    assert (deg + 1) ** 2 == len(sh)
    assert sh[0].shape[-1] == 3 # 3 color channels

    result = C0 * sh[0]
    if deg > 0:
        x, y, z = dirs[..., jnp.newaxis, 0:1], dirs[..., jnp.newaxis, 1:2], dirs[..., jnp.newaxis, 2:3]
        result = (result -
                C1 * y * sh[1] +
                C1 * z * sh[2] -
                C1 * x * sh[3])
        if deg > 1:
            xx, yy, zz = x * x, y * y, z * z
            xy, yz, xz = x * y, y * z, x * z
            result = (result +
                    C2[0] * xy * sh[4] +
                    C2[1] * yz * sh[5] +
                    C2[2] * (2.0 * zz - xx - yy) * sh[6] +
                    C2[3] * xz * sh[7] +
                    C2[4] * (xx - yy) * sh[8])

            if deg > 2:
                result = (result +
                        C3[0] * y * (3 * xx - yy) * sh[9] +
                        C3[1] * xy * z * sh[10] +
                        C3[2] * y * (4 * zz - xx - yy)* sh[11] +
                        C3[3] * z * (2 * zz - 3 * xx - 3 * yy) * sh[12] +
                        C3[4] * x * (4 * zz - xx - yy) * sh[13] +
                        C3[5] * z * (xx - yy) * sh[14] +
                        C3[6] * x * (xx - 3 * yy) * sh[15])
                if deg > 3:
                    result = (result + C4[0] * xy * (xx - yy) * sh[16] +
                            C4[1] * yz * (3 * xx - yy) * sh[17] +
                            C4[2] * xy * (7 * zz - 1) * sh[18] +
                            C4[3] * yz * (7 * zz - 3) * sh[19] +
                            C4[4] * (zz * (35 * zz - 30) + 3) * sh[20] +
                            C4[5] * xz * (7 * zz - 3) * sh[21] +
                            C4[6] * (xx - yy) * (7 * zz - 1) * sh[22] +
                            C4[7] * xz * (xx - 3 * yy) * sh[23] +
                            C4[8] * (xx * (xx - 3 * yy) - yy * (3 * xx - yy)) * sh[24])
    return result
# --- end of sh.py ---


# Based on https://github.com/google-research/google-research/blob/d0a9b1dad5c760a9cfab2a7e5e487be00886803c/jaxnerf/nerf/model_utils.py#L166
def volumetric_rendering(rgb, sigma, z_vals, dirs, white_bkgd=True):
  """Volumetric Rendering Function.
  Args:
    rgb: jnp.ndarray(float32), color, [batch_size, num_samples, 3]
    sigma: jnp.ndarray(float32), density, [batch_size, num_samples].
    z_vals: jnp.ndarray(float32), [batch_size, num_samples].
    dirs: jnp.ndarray(float32), [batch_size, 3].
    white_bkgd: bool.
  Returns:
    comp_rgb: jnp.ndarray(float32), [batch_size, 3].
    disp: jnp.ndarray(float32), [batch_size].
    acc: jnp.ndarray(float32), [batch_size].
    weights: jnp.ndarray(float32), [batch_size, num_samples]
  """
  eps = 1e-10
  dists = z_vals[Ellipsis, 1:] - z_vals[Ellipsis, :-1]
  dists = dists * jnp.linalg.norm(dirs[Ellipsis, None, :], axis=-1)  # Convert ray-relative distance to absolute distance (shouldn't matter if rays_d is normalized)
  # Note that we're quietly turning sigma from [..., 0] to [...].
  alpha = 1.0 - jnp.exp(-jax.nn.relu(sigma) * dists)  # What fraction of light gets stuck in each voxel
  accum_prod = jnp.concatenate([
      jnp.ones_like(alpha[Ellipsis, :1], alpha.dtype),
      jnp.cumprod(1.0 - alpha[Ellipsis, :-1] + eps, axis=-1)
  ],
                               axis=-1)  # How much light is left as we enter each voxel
  weights = alpha * accum_prod  # The absolute amount of light that gets stuck in each voxel
  comp_rgb = (weights[Ellipsis, None] * jax.nn.sigmoid(rgb)).sum(axis=-2)  # Accumulated color over the samples, ignoring background
  depth = (weights * z_vals[Ellipsis, :-1]).sum(axis=-1) # Weighted average of depths by contribution to final color
  acc = weights.sum(axis=-1)  # Total amount of light absorbed along the ray
  # Equivalent to (but slightly more efficient and stable than):
  #  disp = 1 / max(eps, where(acc > eps, depth / acc, 0))
  inv_eps = 1 / eps
  disp = acc / depth
  disp = jnp.where((disp > 0) & (disp < inv_eps) & (acc > eps), disp, inv_eps) # disparity = inverse depth
  if white_bkgd:
    comp_rgb = comp_rgb + (1. - acc[Ellipsis, None])  # Including the white background in the final color
  return comp_rgb, disp, acc, weights


# The volumetric rendering formula from Neural Volumes: https://arxiv.org/abs/1906.07751
def nv_rendering(rgb, sigma, z_vals, dirs, white_bkgd=True):
  eps = 1e-10
  dists = z_vals[Ellipsis, 1:] - z_vals[Ellipsis, :-1]
  dists = dists * jnp.linalg.norm(dirs[Ellipsis, None, :], axis=-1)  # Convert ray-relative distance to absolute distance (shouldn't matter if rays_d is normalized)
  # Note that we're quietly turning sigma from [..., 0] to [...].
  alpha = 1.0 - jnp.exp(-jax.nn.relu(sigma) * dists)  # What fraction of light gets stuck in each voxel
  tau = jnp.clip(jnp.cumsum(alpha, axis=-1), min=0, max=1)
  weights = tau[Ellipsis, 1:] - tau[Ellipsis, :-1]
  # jnp.concatenate(tau[Ellipsis, 1:], jnp.ones_like(tau[Ellipsis, :1])) # The absolute amount of light that gets stuck in each voxel
  comp_rgb = (weights[Ellipsis, None] * jax.nn.sigmoid(rgb[:,:-1,:])).sum(axis=-2)  # Accumulated color over the samples, ignoring background
  depth = (weights * z_vals[Ellipsis, :-2]).sum(axis=-1) # Weighted average of depths by contribution to final color
  acc = weights.sum(axis=-1)  # Total amount of light absorbed along the ray
  # Equivalent to (but slightly more efficient and stable than):
  #  disp = 1 / max(eps, where(acc > eps, depth / acc, 0))
  inv_eps = 1 / eps
  disp = acc / depth
  disp = jnp.where((disp > 0) & (disp < inv_eps) & (acc > eps), disp, inv_eps) # disparity = inverse depth
  if white_bkgd:
    comp_rgb = comp_rgb + (1. - acc[Ellipsis, None])  # Including the white background in the final color
  return comp_rgb, disp, acc, weights


eps = 1e-5

def near_zero(vector):
  return jnp.abs(vector) < eps


def safe_floor(vector):
  return jnp.floor(vector + eps)


def safe_ceil(vector):
  return jnp.ceil(vector - eps)


@functools.partial(jax.jit, static_argnums=(2,3,4,5,8))
def intersection_distances(inputs, data_dict, resolution, radius, jitter, uniform, key, sh_dim, interpolation, matrix, powers):
  start, stop, offset, interval = inputs["start"], inputs["stop"], inputs["offset"], inputs["interval"]
  if uniform == 0:
    # For a single ray, compute all the possible voxel intersections up to the upper bound number, starting when the ray hits the cube
    upper_bound = int(1 + resolution) # per dimension upper bound on the number of voxel intersections
    intersections0 = jnp.linspace(start=start[0] + offset[0], stop=start[0] + offset[0] + interval[0] * upper_bound, num=upper_bound, endpoint=False)
    intersections1 = jnp.linspace(start=start[1] + offset[1], stop=start[1] + offset[1] + interval[1] * upper_bound, num=upper_bound, endpoint=False)
    intersections2 = jnp.linspace(start=start[2] + offset[2], stop=start[2] + offset[2] + interval[2] * upper_bound, num=upper_bound, endpoint=False)
    intersections = jnp.concatenate([intersections0, intersections1, intersections2], axis=None)
    intersections = jnp.sort(intersections) # TODO: replace this with just a merge of the three intersection arrays
  else:
    voxel_len = radius * 2.0 / resolution
    realstart = jnp.min(start)
    count = int(resolution*3 / uniform)
    intersections = jnp.linspace(start=realstart + uniform*voxel_len, stop=realstart + uniform*voxel_len*(count+1), num=count, endpoint=False)
  intersections = jnp.where(intersections <= stop, intersections, stop)
  # Get the values at these intersection points
  ray_o, ray_d = inputs["ray_o"], inputs["ray_d"]
  voxel_sh, voxel_sigma, intersections = values_oneray(intersections, data_dict, ray_o, ray_d, resolution, key, sh_dim, radius, jitter, 1e-5, interpolation, matrix, powers)
  return voxel_sh, voxel_sigma, intersections


get_intersections_partial = jax.vmap(fun=intersection_distances, in_axes=({"start": 0, "stop": 0, "offset": 0, "interval": 0, "ray_o": 0, "ray_d": 0}, None, None, None, None, None, 0, None, None, None, None), out_axes=0)
get_intersections = jax.vmap(fun=get_intersections_partial, in_axes=({"start": 1, "stop": 1, "offset": 1, "interval": 1, "ray_o": 1, "ray_d": 1}, None, None, None, None, None, 1, None, None, None, None), out_axes=1)


@jax.jit
def trilinear_interpolation_weight(xyzs):
  # xyzs should have shape [n_pts, 3] and denote the offset (as a fraction of voxel_len) from the 000 interpolation point
  xs = xyzs[:,0]
  ys = xyzs[:,1]
  zs = xyzs[:,2]
  weight000 = (1-xs) * (1-ys) * (1-zs)  # [n_pts]
  weight001 = (1-xs) * (1-ys) * zs  # [n_pts]
  weight010 = (1-xs) * ys * (1-zs)  # [n_pts]
  weight011 = (1-xs) * ys * zs  # [n_pts]
  weight100 = xs * (1-ys) * (1-zs)  # [n_pts]
  weight101 = xs * (1-ys) * zs  # [n_pts]
  weight110 = xs * ys * (1-zs)  # [n_pts]
  weight111 = xs * ys * zs  # [n_pts]
  weights =  jnp.stack([weight000, weight001, weight010, weight011, weight100, weight101, weight110, weight111], axis=-1) # [n_pts, 8]
  return weights


def apply_power(power, xyzs):
  return xyzs[:,0]**power[0] * xyzs[:,1]**power[1] * xyzs[:,2]**power[2]


@jax.jit
def tricubic_interpolation(xyzs, corner_pts, grid, matrix, powers):
  # xyzs should have shape [n_pts, 3] and denote the offset (as a fraction of voxel_len) from the 000 interpolation point
  # corner_pts should have shape [n_pts, 3] and denote the grid coordinates of the 000 interpolation point
  # matrix should be [64, 64] output of tricubic_interpolation_matrix
  # powers should be [64, 3] and contain all combinations of the powers 0 through 3 in three dimensions
  neighbor_data = jax.vmap(lambda pts: tricubic_neighbors(pts, grid))(corner_pts)  # list where each entry has shape [n_pts, 64, ...] 
  coeffs = [jnp.clip(jax.vmap(lambda d: jnp.matmul(matrix, d))(d), min=-1e7, max=1e7) for d in neighbor_data]  # list where each entry has shape [n_pts, 64, ...]
  things_to_multiply_by_coeffs = jnp.clip(jax.vmap(lambda power: apply_power(power, xyzs), out_axes=-1)(powers), min=-1e7, max=1e7)  # [n_pts, 64]
  result = [jnp.sum(coeff * things_to_multiply_by_coeffs[..., jnp.newaxis], axis=1) for coeff in coeffs[:-1]]  # list where each entry has shape [n_pts, ...]
  result.append(jnp.sum(coeffs[-1] * things_to_multiply_by_coeffs, axis=1))
  return result


@jax.jit
# Get the data at the 64 neighboring voxels needed for tricubic interpolation
def tricubic_neighbors(idx, grid):
  # idx is a vector index of the voxel to be interpolated
  offsets = []
  for i in range(4):
    for j in range(4):
      for k in range(4):
        offsets.append([i-1,j-1,k-1])
  offsets = jnp.array(offsets)  # [64, 3]
  neighbor_idx = idx[jnp.newaxis, :] + offsets  # [64, 3]
  resolution = len(grid[0])
  neighbor_idx = jnp.clip(neighbor_idx, min=0, max=resolution-1)
  neighbor_data = jax.vmap(lambda neighbor: grid_lookup(neighbor[0], neighbor[1], neighbor[2], grid))(neighbor_idx)
  return neighbor_data


# Generate the 64 by 64 weight matrix that maps grid values to polynomial coefficients
@jax.jit
def tricubic_interpolation_matrix():
  # Set up the indices
  powers = []
  for i in range(4):
    for j in range(4):
      for k in range(4):
        powers.append([i,j,k])
  powers = np.asarray(powers)  # [64, 3]  all combinations of the powers 0 through 3 in three dimensions
  coords = powers - 1  # [64, 3]  relative coordinates of neighboring voxels
  # Set up the weight matrix
  matrix = np.zeros((64,64))
  for i in range(64):
    for j in range(64):
      x = coords[i, 0]
      y = coords[i, 1]
      z = coords[i, 2]
      matrix[i,j] = x**powers[j, 0] * y**powers[j, 1] * z**powers[j, 2]
  # Invert the weight matrix
  inverted_matrix = np.linalg.inv(matrix)
  return jnp.array(inverted_matrix), powers


@jax.jit
def grid_lookup(x, y, z, grid):
  indices, data = grid
  ret = [jnp.where(indices[x,y,z,jnp.newaxis]>=0, d[indices[x,y,z]], jnp.zeros(3)) for d in data[:-1]]
  ret.append(jnp.where(indices[x,y,z]>=0, data[-1][indices[x,y,z]], 0))
  return ret


@functools.partial(jax.jit, static_argnums=(4,7,8,10))
def values_oneray(intersections, grid, ray_o, ray_d, resolution, key, sh_dim, radius, jitter, eps, interpolation, matrix, powers):
  voxel_len = radius * 2.0 / resolution
  if not jitter:
    pts = ray_o[jnp.newaxis, :] + intersections[:, jnp.newaxis] * ray_d[jnp.newaxis, :]  # [n_intersections, 3]
    pts = pts[:, jnp.newaxis, :]  # [n_intersections, 1, 3]
    offsets = jnp.array([[-1,-1,-1], [-1,-1,1], [-1,1,-1], [-1,1,1], [1,-1,-1], [1,-1,1], [1,1,-1], [1,1,1]]) * voxel_len / 2.0  # [8, 3]
    neighbors = jnp.clip(pts + offsets[jnp.newaxis, :, :], min=-radius, max=radius)  # [n_intersections, 8, 3]
    neighbor_centers = jnp.clip((jnp.floor(neighbors / voxel_len + eps) + 0.5) * voxel_len, min=-(radius - voxel_len/2), max=radius - voxel_len/2)  # [n_intersections, 8, 3]
    neighbor_ids = jnp.array(jnp.floor(neighbor_centers / voxel_len + eps) + resolution / 2, dtype=int)  # [n_intersections, 8, 3]
    neighbor_ids = jnp.clip(neighbor_ids, min=0, max=resolution-1)
    xyzs = (pts[:,0,:] - neighbor_centers[:,0,:]) / voxel_len
    if interpolation == 'tricubic':
      pt_data = tricubic_interpolation(xyzs, neighbor_ids[:,0,:], grid, matrix, powers)
      pt_sigma = pt_data[-1][:-1]
      pt_sh = [d[:-1,:] for d in pt_data[:-1]]
    elif interpolation == 'trilinear':
      weights = trilinear_interpolation_weight(xyzs)  # [n_intersections, 8]
      neighbor_data = grid_lookup(neighbor_ids[...,0], neighbor_ids[...,1], neighbor_ids[...,2], grid)
      neighbor_sh = neighbor_data[:-1]
      neighbor_sigma = neighbor_data[-1]
      pt_sigma = jnp.sum(weights * neighbor_sigma, axis=1)[:-1]
      pt_sh = [jnp.sum(weights[..., jnp.newaxis] * nsh, axis=1)[:-1,:] for nsh in neighbor_sh]
    elif interpolation == 'constant':
      voxel_ids = neighbor_ids[:,0,:]
      voxel_data = jax.vmap(lambda voxel_id: grid_lookup(voxel_id[0], voxel_id[1], voxel_id[2], grid))(voxel_ids)
      pt_sigma = voxel_data[-1][:-1]
      pt_sh = [d[:-1,:] for d in voxel_data[:-1]]
    else:
      print(f'Unrecognized interpolation method {interpolation}.')
      assert False
    return pt_sh, pt_sigma, intersections
  else: # Only does trilinear with jitter
    jitters = jax.random.normal(key=key, shape=(intersections.shape[0],)) * voxel_len * jitter
    jittered_intersections = jnp.clip(intersections + jitters, min=intersections[0], max=intersections[-1])
    jittered_pts = ray_o[jnp.newaxis, :] + jittered_intersections[:, jnp.newaxis] * ray_d[jnp.newaxis, :]  # [n_intersections, 3]
    jittered_pts = jittered_pts[:, jnp.newaxis, :]  # [n_intersections, 1, 3]
    offsets = jnp.array([[-1,-1,-1], [-1,-1,1], [-1,1,-1], [-1,1,1], [1,-1,-1], [1,-1,1], [1,1,-1], [1,1,1]]) * voxel_len / 2.0  # [8, 3]
    neighbors = jnp.clip(jittered_pts + offsets[jnp.newaxis, :, :], min=-radius, max=radius)  # [n_intersections, 8, 3]
    neighbor_centers = jnp.clip((jnp.floor(neighbors / voxel_len + eps) + 0.5) * voxel_len, min=-(radius - voxel_len/2), max=radius - voxel_len/2)  # [n_intersections, 8, 3]
    neighbor_ids = jnp.array(jnp.floor(neighbor_centers / voxel_len + eps) + resolution / 2, dtype=int)  # [n_intersections, 8, 3]
    neighbor_ids = jnp.clip(neighbor_ids, min=0, max=resolution-1)
    xyzs = (jittered_pts[:,0,:] - neighbor_centers[:,0,:]) / voxel_len
    weights = trilinear_interpolation_weight(xyzs)  # [n_intersections, 8]
    neighbor_data = grid_lookup(neighbor_ids[...,0], neighbor_ids[...,1], neighbor_ids[...,2], grid)
    neighbor_sh = neighbor_data[:-1]
    neighbor_sigma = neighbor_data[-1]
    pt_sigma = jnp.sum(weights * neighbor_sigma, axis=1)[:-1]
    pt_sh = [jnp.sum(weights[..., jnp.newaxis] * nsh, axis=1)[:-1,:] for nsh in neighbor_sh]
    idx = jnp.argsort(jittered_intersections)  # Should be nearly sorted already
    return [sh[idx][:-1] for sh in pt_sh], pt_sigma[idx][:-1], jittered_intersections[idx]


@functools.partial(jax.jit, static_argnums=(2,4,5,6,7,8,9))
def render_rays(grid, rays, resolution, keys, radius=1.3, harmonic_degree=0, jitter=0, uniform=0, interpolation='trilinear', nv=False):
  sh_dim = (harmonic_degree + 1)**2
  voxel_len = radius * 2.0 / resolution
  assert (resolution // 2) * 2 == resolution # Renderer assumes resolution is a multiple of 2
  rays_o, rays_d = rays
  # Compute when the rays enter and leave the grid
  offsets_pos = jax.lax.stop_gradient((radius - rays_o) / rays_d)
  offsets_neg = jax.lax.stop_gradient((-radius - rays_o) / rays_d)
  offsets_in = jax.lax.stop_gradient(jnp.minimum(offsets_pos, offsets_neg))
  offsets_out = jax.lax.stop_gradient(jnp.maximum(offsets_pos, offsets_neg))
  start = jax.lax.stop_gradient(jnp.max(offsets_in, axis=-1, keepdims=True))
  stop = jax.lax.stop_gradient(jnp.min(offsets_out, axis=-1, keepdims=True))
  first_intersection = jax.lax.stop_gradient(rays_o + start * rays_d)
  # Compute locations of ray-voxel intersections along each dimension
  interval = jax.lax.stop_gradient(voxel_len / jnp.abs(rays_d))
  offset_bigger = jax.lax.stop_gradient((safe_ceil(first_intersection / voxel_len) * voxel_len - first_intersection) / rays_d)
  offset_smaller = jax.lax.stop_gradient((safe_floor(first_intersection / voxel_len) * voxel_len - first_intersection) / rays_d)
  offset = jax.lax.stop_gradient(jnp.maximum(offset_bigger, offset_smaller))
  # Compute the samples along each ray
  matrix = None
  powers = None
  if interpolation == 'tricubic':
    matrix, powers = tricubic_interpolation_matrix()
  if len(rays_o.shape) > 2:
    voxel_sh, voxel_sigma, intersections = get_intersections({"start": start, "stop": stop, "offset": offset, "interval": interval, "ray_o": rays_o, "ray_d": rays_d}, grid, resolution, radius, jitter, uniform, keys, sh_dim, interpolation, matrix, powers)
  else:
    voxel_sh, voxel_sigma, intersections = get_intersections_partial({"start": start, "stop": stop, "offset": offset, "interval": interval, "ray_o": rays_o, "ray_d": rays_d}, grid, resolution, radius, jitter, uniform, keys, sh_dim, interpolation, matrix, powers)
  # Apply spherical harmonics
  voxel_rgb = eval_sh(harmonic_degree, voxel_sh, rays_d)
  # Call volumetric_rendering
  if nv:
    rgb, disp, acc, weights = nv_rendering(voxel_rgb, voxel_sigma, intersections, rays_d)
  else:
    rgb, disp, acc, weights = volumetric_rendering(voxel_rgb, voxel_sigma, intersections, rays_d)
  pts = rays_o[:, jnp.newaxis, :] + intersections[:, :, jnp.newaxis] * rays_d[:, jnp.newaxis, :]  # [n_rays, n_intersections, 3]
  ids = jnp.clip(jnp.array(jnp.floor(pts / voxel_len + eps) + resolution / 2, dtype=int), min=0, max=resolution-1)
  return rgb, disp, acc, weights, ids


def get_rays(H, W, focal, c2w):
    i, j = jnp.meshgrid(jnp.linspace(0, W-1, W) + 0.5, jnp.linspace(0, H-1, H) + 0.5) 
    dirs = jnp.stack([(i-W*.5)/focal, -(j-H*.5)/focal, -jnp.ones_like(i)], -1)
    # Rotate ray directions from camera frame to the world frame
    rays_d = jnp.sum(dirs[..., jnp.newaxis, :] * c2w[:3,:3], -1)  # dot product, equals to: [c2w.dot(dir) for dir in dirs]
    # Translate camera frame's origin to the world frame. It is the origin of all rays.
    rays_o = jnp.broadcast_to(c2w[:3,-1], rays_d.shape)
    return rays_o, rays_d

if __name__ == "__main__":
  resolution, radius = 8, 1.3
  indices = jnp.arange(resolution**3, dtype=int).reshape((resolution, resolution, resolution))
  sigma = jax.random.uniform(jax.random.PRNGKey(0), (resolution**3,)) * 5.0
  rgb0 = jax.random.normal(jax.random.PRNGKey(1), (resolution**3, 3))
  grid = (indices, [rgb0, sigma])
  c2w = jnp.array([[1.0, 0.0, 0.0, 0.1], [0.0, 1.0, 0.0, -0.1], [0.0, 0.0, 1.0, 3.0]])
  rays_o, rays_d = get_rays(2, 3, 2.0, c2w)
  rays = (rays_o.reshape(-1, 3), rays_d.reshape(-1, 3))  # a batch of 6 rays, as in training
  keys = jax.vmap(jax.random.PRNGKey, in_axes=0, out_axes=0)(jnp.arange(6))
  for interpolation in ('trilinear', 'tricubic', 'constant'):
    rgb, disp, acc, weights, ids = render_rays(grid, rays, resolution, None, radius, 0, 0, 0, interpolation, False)
    assert rgb.shape == (6, 3) and bool(jnp.all(jnp.isfinite(rgb)))
  rgb_j, _, _, _, _ = render_rays(grid, rays, resolution, keys, radius, 0, 0.1, 0, 'trilinear', False)
  assert rgb_j.shape == (6, 3)
  rgb_u, _, _, _, _ = render_rays(grid, rays, resolution, None, radius, 0, 0, 0.5, 'trilinear', True)
  assert rgb_u.shape == (6, 3)
  def loss(data):
    rgb, _, _, _, _ = render_rays((indices, data), rays, resolution, keys, radius, 0, 0.1, 0, 'trilinear', False)
    return jnp.mean((rgb - 0.5) ** 2) + 0.01 * jnp.mean(jax.nn.relu(data[-1]))
  mse, grad = jax.value_and_grad(loss)([rgb0, sigma])
  assert grad[0].shape == rgb0.shape and bool(jnp.isfinite(mse))
