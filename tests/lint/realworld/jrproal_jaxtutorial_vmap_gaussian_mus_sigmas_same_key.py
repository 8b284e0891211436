# source: https://github.com/jrproal/jax_tutorial/blob/b4ffe20e85aa9cc866e0347d182632882db54a2a/03_vmap_and_composability.py
# observed on jax 0.10.2 CPU: `mus` and the log of `sigmas` are drawn from the same key, so
#   log(sigmas) == mus exactly: every Gaussian image's width is exp of its centre, not an
#   independent log-normal width. Kept: cells 3.1 (grid, gaussian_image_single, the loop
#   and the vmap approach) as in the notebook script; the device prints, the timing
#   prints and matplotlib are left out, the __main__ check is added.
# gap: other
import jax
import jax.numpy as jnp
from jax import jit, grad, vmap
from time import time

# Define a grid of (x, y) coordinates
x = jnp.linspace(-3, 3, 100)
y = jnp.linspace(-3, 3, 100)
X, Y = jnp.meshgrid(x, y)

def gaussian_image_single(mu, sigma):
    """
    Generate a single 2D Gaussian image.

    Args:
        mu: center of the Gaussian (scalar) - for simplicity we shift only in x
        sigma: width of the Gaussian (scalar)

    Returns:
        image: 2D array of shape (100, 100)
    """
    return jnp.exp(-((X - mu)**2 + Y**2) / (2 * sigma**2))

# Test: Generate one image
img = gaussian_image_single(0.0, 1.0)
print(f"Single image shape: {img.shape}")

# Generate 1,000 random parameters
key = jax.random.key(0)
n_images = 1000
mus = jax.random.normal(key, (n_images,))
sigmas = jnp.exp(jax.random.normal(key, (n_images,)))  # expect: JIT502

# Approach 1: Python loop
def generate_images_loop(mus, sigmas):
    images = []
    for mu, sigma in zip(mus, sigmas):
        images.append(gaussian_image_single(mu, sigma))
    return jnp.stack(images)

# Time it
start = time()
images_loop = generate_images_loop(mus, sigmas)
time_loop = time() - start

# Approach 2: vmap - automatic vectorization
# We use the ORIGINAL single-example function!
gaussian_images_batch = vmap(gaussian_image_single, in_axes=(0, 0), out_axes=0)

# Warm up (trigger compilation/caching)
_ = gaussian_images_batch(mus, sigmas).block_until_ready()

# Time it
start = time()
images_vmap = gaussian_images_batch(mus, sigmas).block_until_ready()
time_vmap = time() - start

print("image vmap shape:", images_vmap.shape)
print(f"Results match: {jnp.allclose(images_loop, images_vmap)}")

if __name__ == "__main__":
    # observed: line 39 draws the log-widths from the key the centres came from
    assert jnp.allclose(jnp.log(sigmas), mus, atol=1e-5)
    assert float(jnp.corrcoef(mus, jnp.log(sigmas))[0, 1]) > 0.9999
