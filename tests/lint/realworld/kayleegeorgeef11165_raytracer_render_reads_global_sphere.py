# source: https://github.com/kayleegeorge/kayleegeorge.github.io/blob/ef1116537565ba084085025429c7fe84d30676f5/_posts/2025-09-11-jax-ray-tracing.md (published as https://kayleegeorge.github.io/blog/jax-ray-tracer, "Ray Tracing in JAX", Part 1)
# observed on jax 0.10.2 CPU: runs without error, but render_image takes sphere_centers / sphere_radii and never uses them: its body reads the module globals sphere_center / sphere_radius, which render_image_jit bakes in at trace time, so passing another sphere (or rebinding the globals afterwards) still renders the first sphere
# gap: flow-sensitive
# observed: line 126 render_image_jit(W, H, other_center, other_radius) returns the image of the global sphere, not of the sphere passed in, and still does so after the global sphere_center is rebound to the new sphere
# (added: normalize(), which the post uses but defines only in its Colab; the globals sphere_center = [0, 0, -1], sphere_radius = 0.5 of the tutorial's first scene; small image sizes; the __main__ block)
import jax
import jax.numpy as jnp
import numpy as np
from jax import jit, vmap


def normalize(v):
    return v / jnp.linalg.norm(v)


def ray_at(origin, direction, t):
    """Returns the point at parameter t along the ray"""
    return origin + t * direction


def ray_sphere_intersect(ray_origin, ray_direction, sphere_center, radius):
  """If and where a ray hits a sphere"""

  # vector from ray origin to sphere center
  oc = sphere_center - ray_origin

  # quadratic equation coeffs
  a = jnp.dot(ray_direction, ray_direction)
  h = jnp.dot(ray_direction, oc)
  c = jnp.dot(oc, oc) - radius * radius

  discriminant = h * h - a * c

  # instead of early return, compute everything but mask results
  hit = discriminant >= 0

  sqrt_d = jnp.sqrt(jnp.maximum(discriminant, 0))
  root_near = (h - sqrt_d) / a
  root_far = (h + sqrt_d) / a

  # Choose the closest positive root
  t = jnp.where(
      root_near > 0, 
      root_near,
      jnp.where(root_far > 0, root_far, jnp.inf)
  )

  t = jnp.where(hit, t, jnp.inf)
  p = ray_at(ray_origin, ray_direction, t) # hit point
  outward_normal = (p - sphere_center) / radius
  normal = jnp.where(hit, outward_normal, jnp.zeros(3))

  return hit, t, p, normal


def create_camera(image_width, image_height):
  """Setup a simple camera"""
  aspect_ratio = image_width / image_height
  
  # viewport dimensions 
  focal_length = 1.0
  viewport_height = 2.0
  viewport_width = viewport_height * (image_width / image_height)
  camera_center = jnp.array([0.0, 0.0, 0.0])
  
  # viewport vectors
  viewport_u = jnp.array([viewport_width, 0, 0]) # right edge
  viewport_v = jnp.array([0, -viewport_height, 0]) # down edge
  
  # delta vectors from pixel to pixel
  pixel_delta_u = viewport_u / image_width
  pixel_delta_v = viewport_v / image_height
  
  # upper left and center pixels
  viewport_upper_left = (camera_center - 
                        jnp.array([0, 0, focal_length]) - 
                        viewport_u/2 - viewport_v/2)
  pixel00_loc = viewport_upper_left + 0.5 * (pixel_delta_u + pixel_delta_v)
  
  return image_width, image_height, aspect_ratio, camera_center, pixel00_loc, pixel_delta_u, pixel_delta_v


def camera_get_ray(i, j, image_width, image_height):
  """Generate a ray from camera through pixel (i,j)"""
  _, _, _, camera_center, pixel00_loc, pixel_delta_u, pixel_delta_v = create_camera(image_width, image_height)

  pixel_center = pixel00_loc + (i * pixel_delta_u) + (j * pixel_delta_v)
  ray_direction = normalize(pixel_center - camera_center)

  return camera_center, ray_direction


def ray_color(ray_origin, ray_direction, sphere_center, radius):
  hit, t, p, normal = ray_sphere_intersect(ray_origin, ray_direction, sphere_center, radius)

  # hit color
  sphere_color = 0.5 * normal + jnp.array([1.0, 1.0, 1.0])

  # sky color
  unit_direction = normalize(ray_direction)
  a = 0.5 * (unit_direction[1] + 1.0) # y component for dir

  sphere_color = jnp.clip(sphere_color, 0.0, 1.0) # nit: clamp to [0,1]

  sky_color = (1.0 - a) * jnp.array([1.0, 1.0, 1.0]) + a * jnp.array([0.5, 0.7, 1.0])

  return jnp.where(hit, sphere_color, sky_color)


def trace_pixel(i, j, image_width, image_height, sphere_center, sphere_radius):
  """Cast a ray through pixel (i,j) and return its color"""
  ray_origin, ray_direction = camera_get_ray(i, j, image_width, image_height)
  return ray_color(ray_origin, ray_direction, sphere_center, sphere_radius)

trace_pixel_jit = jit(trace_pixel, static_argnums=(2, 3))  # width/height are static


def render_image(width, height, sphere_centers, sphere_radii):
  """Fast version with vectorization to render all pixels at once"""
  # Create coordinate grids for all pixels
  x_coords, y_coords = jnp.meshgrid(jnp.arange(width), jnp.arange(height))

  # Vectorize over all pixels at once
  trace_all_pixels = vmap(trace_pixel_jit, in_axes=(0, 0, None, None, None, None))
  colors_flat = trace_all_pixels(x_coords.flatten(), y_coords.flatten(), 
                                  width, height, sphere_center, sphere_radius)  # expect: JIT201
  
  return colors_flat.reshape(height, width, 3)

# JIT the entire render pipeline
render_image_jit = jit(render_image, static_argnums=(0, 1))

def render_image_slow(width, height, sphere_center, sphere_radius):
  """Slow verison with loops to render each pixel (like in the Raytracing tutorial)"""
  image = np.zeros((height, width, 3))

  for y in range(height):
      for x in range(width):
          color = trace_pixel(x, y, width, height, sphere_center, sphere_radius)
          image[y, x] = color

  return image


sphere_center = jnp.array([0.0, 0.0, -1.0])
sphere_radius = 0.5


if __name__ == "__main__":
    W, H = 16, 9
    img_a = render_image_jit(W, H, sphere_center, sphere_radius)
    assert np.allclose(img_a, render_image_slow(W, H, sphere_center, sphere_radius), atol=1e-5)

    # another sphere, passed as the arguments render_image declares
    other_center, other_radius = jnp.array([0.6, 0.3, -1.5]), 0.3
    expected_b = render_image_slow(W, H, other_center, other_radius)
    assert not np.allclose(img_a, expected_b, atol=1e-3)

    img_b = render_image_jit(W, H, other_center, other_radius)
    assert np.allclose(img_b, img_a) and not np.allclose(img_b, expected_b, atol=1e-3)

    # rebinding the globals does not help either: the compiled render keeps the first sphere
    sphere_center, sphere_radius = other_center, other_radius
    img_c = render_image_jit(W, H, other_center, other_radius)
    assert np.allclose(img_c, img_a) and not np.allclose(img_c, expected_b, atol=1e-3)
    print("render_image_jit ignores its sphere arguments and keeps the first global sphere")
