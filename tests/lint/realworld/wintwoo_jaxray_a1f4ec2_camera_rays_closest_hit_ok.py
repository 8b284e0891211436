# source: https://github.com/wintwoo/jax-ray/blob/a1f4ec216b965b73a4cfcf6b31da8ec68f41013a/jax_ray.py
# observed on jax 0.10.2 CPU: runs clean. create_camera_rays_jax is jitted with its first five
#   parameters static (width, height, focal_length, fov_y, samples_per_pixel), so its Python
#   `if samples_per_pixel > 1` and the shapes built from width/height are concrete, and
#   `key is None` / `camera_pos is not None` test the pytree structure of the call; the chunked
#   closest-hit intersection (static M and chunk_size, a lax.scan over triangle chunks under
#   vmap) finds the hits the notebook expects, and a second call with another key reuses the
#   compilation of create_camera_rays_jax.
# gap: static-hashability
# added: a __main__ block following the repository's
#   exp.ipynb (commit 5675c79) cells "Basic Ray to Triangle Intersection" and "Chunked ray
#   triangle intersection test" at a smaller image (64x64, 2 samples per pixel), with a
#   compile count through jax.monitoring. Trimmed: the shadow and lighting functions after
#   create_camera_rays_jax.
import jax
import jax.numpy as jnp
from functools import partial

EPSILON = 1e-8

@partial(jax.jit, static_argnames=('M',))
def ray_triangle_intersect_single_ray(orig, direction, v0s, v0v1s, v0v2s, unit_normals, M):
    """
    Kernel for intersecting a single ray with M triangles.
    Uses precomputed edge vectors (v0v1, v0v2) and normals.
    """
    origs = orig[None, :].repeat(M, axis=0)
    dirs = direction[None, :].repeat(M, axis=0)

    pvec = jnp.cross(dirs, v0v2s)
    det = jnp.sum(v0v1s * pvec, axis=-1)
    parallel_mask = jnp.abs(det) > EPSILON

    tvec = origs - v0s
    inv_det = 1.0 / det

    u = jnp.sum(tvec * pvec, axis=-1) * inv_det
    u_mask = (u >= 0.0) & (u <= 1.0) & parallel_mask

    qvec = jnp.cross(tvec, v0v1s)
    v = jnp.sum(dirs * qvec, axis=-1) * inv_det
    v_mask = (v >= 0.0) & ((u + v) <= 1.0)

    t = jnp.sum(v0v2s * qvec, axis=-1) * inv_det
    t_mask = t >= 0.0

    intersect_mask = u_mask & v_mask & t_mask

    params_result = jnp.stack((t, u, v), axis=-1)

    placeholder_params = jnp.full_like(params_result, -1.0)
    placeholder_normals = jnp.full_like(unit_normals, -1.0)

    final_params = jnp.where(intersect_mask[:, None], params_result, placeholder_params)
    final_normals = jnp.where(intersect_mask[:, None], unit_normals, placeholder_normals)

    return final_params, final_normals, intersect_mask

# --- Pre-computation ---

def precompute_triangle_geometry(v0s, v1s, v2s):
    """
    Precomputes edge vectors and normals for static geometry.
    """
    v0v1s = v1s - v0s
    v0v2s = v2s - v0s

    unnormalized_normals = jnp.cross(v0v1s, v0v2s)
    normal_lengths = jnp.linalg.norm(unnormalized_normals, axis=-1, keepdims=True)
    unit_normals = jnp.where(
        normal_lengths > EPSILON,
        unnormalized_normals / normal_lengths,
        jnp.zeros_like(unnormalized_normals)
    )
    return v0v1s, v0v2s, unit_normals

# --- New Reduction Logic ---

def scan_closest_hit_step(carry, batch_data, chunk_size, ray_orig, ray_dir):
    current_min_t, current_normal, current_hit_found = carry
    # Unpack 4 arrays now: v0s, v0v1, v0v2, normals
    v0s_chunk, v0v1_chunk, v0v2_chunk, normals_chunk = batch_data

    params, normals, mask = ray_triangle_intersect_single_ray(
        ray_orig, ray_dir, v0s_chunk, v0v1_chunk, v0v2_chunk, normals_chunk, M=chunk_size
    )
    t_vals = params[..., 0]

    is_closer = mask & (t_vals < current_min_t)
    candidates_t = jnp.where(is_closer, t_vals, jnp.inf)
    best_idx = jnp.argmin(candidates_t)

    chunk_best_t = t_vals[best_idx]
    chunk_best_normal = normals[best_idx]
    chunk_found_better = is_closer[best_idx]

    new_min_t = jnp.where(chunk_found_better, chunk_best_t, current_min_t)
    new_normal = jnp.where(chunk_found_better, chunk_best_normal, current_normal)
    new_hit_found = current_hit_found | chunk_found_better

    return (new_min_t, new_normal, new_hit_found), None

@partial(jax.jit, static_argnames=('M', 'chunk_size'))
def ray_triangle_intersect_closest(
    origs, dirs,
    v0s, v0v1s, v0v2s, unit_normals,
    M: int, chunk_size: int
):
    num_chunks = (M + chunk_size - 1) // chunk_size
    padding_needed = num_chunks * chunk_size - M
    pad_width = ((0, padding_needed), (0, 0))

    # Pad all geometry arrays
    v0s_batched = jnp.pad(v0s, pad_width, mode='edge').reshape(num_chunks, chunk_size, 3)
    v0v1s_batched = jnp.pad(v0v1s, pad_width, mode='edge').reshape(num_chunks, chunk_size, 3)
    v0v2s_batched = jnp.pad(v0v2s, pad_width, mode='edge').reshape(num_chunks, chunk_size, 3)
    normals_batched = jnp.pad(unit_normals, pad_width, mode='edge').reshape(num_chunks, chunk_size, 3)

    triangle_batches = (v0s_batched, v0v1s_batched, v0v2s_batched, normals_batched)

    def per_ray_closest(ray_orig, ray_dir):
        init_carry = (jnp.inf, jnp.zeros(3), False)
        scan_func = partial(scan_closest_hit_step, chunk_size=chunk_size, ray_orig=ray_orig, ray_dir=ray_dir)
        (final_t, final_normal, final_hit), _ = jax.lax.scan(
            scan_func, init=init_carry, xs=triangle_batches
        )
        return final_t, final_normal, final_hit

    return jax.vmap(per_ray_closest)(origs, dirs)

def create_random_triangles_jax(
    num_triangles: int,
    key: jax.random.PRNGKey,
    min_coord: float = -5.0,
    max_coord: float = 5.0,
    z_plane: float = 0.0,
) -> tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray]:
    """
    Creates N random triangles.
    """
    key_v0, key_v1, key_v2 = jax.random.split(key, 3)
    v0s = jax.random.uniform(key_v0, shape=(num_triangles, 3), minval=min_coord, maxval=max_coord)
    v1s = jax.random.uniform(key_v1, shape=(num_triangles, 3), minval=min_coord, maxval=max_coord)
    v2s = jax.random.uniform(key_v2, shape=(num_triangles, 3), minval=min_coord, maxval=max_coord)

    if z_plane is not None:
        z_component = jnp.full((num_triangles, 1), z_plane)
        v0s = v0s.at[:, 2].set(z_component[:, 0])
        v1s = v1s.at[:, 2].set(z_component[:, 0])
        v2s = v2s.at[:, 2].set(z_component[:, 0])

    return v0s, v1s, v2s

@partial(jax.jit, static_argnums=(0, 1, 2, 3, 4))
def create_camera_rays_jax(
    width: int = 1024,
    height: int = 1024,
    focal_length: float = 1.0,
    fov_y: float = jnp.deg2rad(90.0),
    samples_per_pixel: int = 1,
    key: jax.random.PRNGKey = None,
    camera_pos: jnp.ndarray = None,
    look_at: jnp.ndarray = None,
    up_dir: jnp.ndarray = None,
) -> tuple[jnp.ndarray, jnp.ndarray]:
    """
    Creates vectorized ray origins and directions.
    """
    plane_half_height = focal_length * jnp.tan(fov_y / 2.0)
    plane_height = 2.0 * plane_half_height
    aspect_ratio = width / height
    plane_width = plane_height * aspect_ratio

    x_indices = jnp.arange(width)
    y_indices = jnp.arange(height)
    X_grid, Y_grid = jnp.meshgrid(x_indices, y_indices)

    if samples_per_pixel > 1:
        if key is None:
            u_offset = jnp.full((samples_per_pixel, height, width), 0.5)
            v_offset = jnp.full((samples_per_pixel, height, width), 0.5)
        else:
            key_u, key_v = jax.random.split(key)
            u_offset = jax.random.uniform(key_u, (samples_per_pixel, height, width))
            v_offset = jax.random.uniform(key_v, (samples_per_pixel, height, width))
        X_grid = jnp.tile(X_grid[None, ...], (samples_per_pixel, 1, 1))
        Y_grid = jnp.tile(Y_grid[None, ...], (samples_per_pixel, 1, 1))
    else:
        u_offset = jnp.full((1, height, width), 0.5)
        v_offset = jnp.full((1, height, width), 0.5)
        X_grid = X_grid[None, ...]
        Y_grid = Y_grid[None, ...]

    u_coords = (X_grid + u_offset) / width
    v_coords = (Y_grid + v_offset) / height

    X_plane = (u_coords - 0.5) * plane_width
    Y_plane = (0.5 - v_coords) * plane_height
    Z_plane = jnp.full_like(X_plane, -focal_length)

    dirs_unnormalized = jnp.stack([X_plane, Y_plane, Z_plane], axis=-1)
    dirs_cam = dirs_unnormalized / jnp.linalg.norm(dirs_unnormalized, axis=-1, keepdims=True)

    # 7. Camera Transformation
    if camera_pos is not None and look_at is not None:
        cam_pos = camera_pos
        up = up_dir if up_dir is not None else jnp.array([0.0, 1.0, 0.0])

        # Compute camera direction
        camera_dir = look_at - cam_pos

        # Build camera basis (right-handed coordinate system)
        forward = camera_dir / jnp.linalg.norm(camera_dir)
        right = jnp.cross(forward, up)  # Changed from cross(up, forward)
        right = right / jnp.linalg.norm(right)
        up_ortho = jnp.cross(right, forward)  # Changed from cross(forward, right)

        # Rotation matrix: camera space -> world space
        # Camera looks down -Z, so: [right, up, -forward]
        R = jnp.stack([right, up_ortho, -forward], axis=1)

        # Apply rotation to directions
        dirs_flat = dirs_cam.reshape(-1, 3)
        dirs_world = (R @ dirs_flat.T).T
        dirs = dirs_world.reshape(dirs_cam.shape)

        # Origins at camera position
        origs = jnp.zeros_like(dirs) + cam_pos
    else:
        # Default: camera at origin, looking down -Z
        dirs = dirs_cam
        origs = jnp.zeros_like(dirs)

    # 8. Flatten
    total_rays = samples_per_pixel * height * width
    origs = origs.reshape(total_rays, 3)
    dirs = dirs.reshape(total_rays, 3)

    return origs, dirs


if __name__ == "__main__":
    import numpy as np

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None)

    # exp.ipynb: "Basic Ray to Triangle Intersection"
    M_TRIS = 6
    test_v0s = jnp.array([
        [-1.0, -1.0, 0.0],
        [ 1.0,  1.0, 0.0],
        [ 0.0,  0.0, 0.0],
        [ 5.0,  5.0, 0.0],
        [ 0.0,  0.0, 5.0],
        [ 0.0,  0.0, -5.0]
    ])
    test_v1s = test_v0s + jnp.array([2.0, 0.0, 0.0])
    test_v2s = test_v0s + jnp.array([0.0, 2.0, 0.0])
    test_origs = jnp.array([[0.0, 0.0, -10.0], [1.0, 1.0, -10.0]])
    test_dirs = jnp.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    v0v1s, v0v2s, tri_normals = precompute_triangle_geometry(test_v0s, test_v1s, test_v2s)
    t, n, h = ray_triangle_intersect_closest(
        test_origs, test_dirs,
        test_v0s, v0v1s, v0v2s, tri_normals,
        M=M_TRIS, chunk_size=min(M_TRIS, 128)
    )
    # the notebook's output: Ray 0 Closest t: 5.0, Ray 0 Hit: True, Ray 1 Closest t: 5.0
    assert np.allclose(t, [5.0, 5.0]) and bool(h[0])
    # chunks smaller than M (padding, several scan steps) give the same hits
    t2, _, h2 = ray_triangle_intersect_closest(
        test_origs, test_dirs, test_v0s, v0v1s, v0v2s, tri_normals, M=M_TRIS, chunk_size=4)
    assert np.allclose(t2, t) and np.array_equal(h2, h)

    # exp.ipynb: "Chunked ray triangle intersection test" (smaller image)
    DEFAULT_KEY = jax.random.PRNGKey(42)
    key_for_scene, DEFAULT_KEY = jax.random.split(DEFAULT_KEY)
    test_origs, test_dirs = create_camera_rays_jax(
        width=64,
        height=64,
        samples_per_pixel=2,
        key=DEFAULT_KEY,
    )
    assert test_origs.shape == (2 * 64 * 64, 3)
    test_v0s, test_v1s, test_v2s = create_random_triangles_jax(
        key=key_for_scene, num_triangles=M_TRIS, min_coord=-2.0, max_coord=2.0, z_plane=-5.0,
    )
    v0v1s, v0v2s, tri_normals = precompute_triangle_geometry(test_v0s, test_v1s, test_v2s)
    t, n, h = ray_triangle_intersect_closest(
        test_origs, test_dirs, test_v0s, v0v1s, v0v2s, tri_normals,
        M=M_TRIS, chunk_size=min(M_TRIS, 128)
    )
    # the notebook's check: rays with a finite t are exactly the rays that hit
    assert int(jnp.sum(t < jnp.inf)) == int(jnp.sum(h)) > 0

    # another key: new jitter, same compilation of create_camera_rays_jax
    n_before = compiles.count("jit(create_camera_rays_jax)")
    o2, d2 = create_camera_rays_jax(width=64, height=64, samples_per_pixel=2,
                                    key=jax.random.PRNGKey(7))
    assert compiles.count("jit(create_camera_rays_jax)") == n_before == 1
    assert not np.allclose(d2, test_dirs)
