# source: https://github.com/lanl/scico/pull/541 (the failing test of the report,
#   https://github.com/lanl/scico/issues/535, and the data generation functions it calls, before
#   the fix: scico/test/flax/test_examples_flax.py and scico/flax/examples/data_generation.py at
#   https://github.com/lanl/scico/blob/1ffcbcf60ee4bd5050f0896970ec57947d67140d/scico/flax/examples/data_generation.py;
#   docstrings are shortened, ray is taken as not installed (the path the test took),
#   the module's XLA_FLAGS line forcing 8 host devices is left out, and `CircularConvolve` is a
#   stand-in for scico.linop.CircularConvolve; the module level runs the test's body)
# observed on jax 0.10.2 CPU: TracerIntegerConversionError at `np.random.seed(seed)`:
#   distributed_data_generation vmaps the image function over the seeds, so the seed handed to
#   NumPy's global generator is a tracer.
# gap: other
from time import time
from typing import Callable, Tuple

import numpy as np

import jax
import jax.numpy as jnp

Array = jax.Array
have_ray = False


class CircularConvolve:  # stand-in for scico.linop.CircularConvolve
    def __init__(self, h, input_shape):
        self.H = jnp.fft.fft2(jnp.asarray(h), s=input_shape)

    def __call__(self, x):
        return jnp.real(jnp.fft.ifft2(jnp.fft.fft2(x) * self.H))


def vector_f(f_: Callable, v: Array) -> Array:
    """Vectorize application of operator."""
    lf = lambda x: jnp.atleast_3d(f_(x.squeeze()))
    auto_batch = jax.vmap(lf)
    return auto_batch(v)


def batched_f(f_: Callable, vr: Array) -> Array:
    """Distribute application of operator over a batch of vectors
       among available processes."""
    nproc = jax.device_count()
    res = jax.pmap(lambda i: vector_f(f_, vr[i]))(jnp.arange(nproc))
    return res


def generate_blur_data(
    nimg: int,
    size: int,
    blur_kernel: Array,
    noise_sigma: float,
    imgfunc: Callable,
    seed: int = 4321,
    verbose: bool = False,
    prefer_ray: bool = True,
) -> Tuple[Array, ...]:
    """Generate batch of blurred data."""
    if have_ray and prefer_ray:
        start_time = time()
        img = ray_distributed_data_generation(imgfunc, size, nimg, seed)
        time_dtgen = time() - start_time
    else:
        start_time = time()
        img = distributed_data_generation(imgfunc, size, nimg, False)
        time_dtgen = time() - start_time

    # Clip to [0,1] range.
    img = jnp.clip(img, 0, 1)
    nproc = jax.device_count()

    # Configure blur operator
    ishape = (size, size)
    A = CircularConvolve(h=blur_kernel, input_shape=ishape)

    # Compute blurred images in parallel
    start_time = time()
    if nproc > 1:
        # Shard array
        imgshd = img.reshape((nproc, -1, size, size, 1))
        blurshd = batched_f(A, imgshd)
        blur = blurshd.reshape((-1, size, size, 1))
    else:
        blur = vector_f(A, img)
    time_blur = time() - start_time
    # Normalize blurred images
    blur = blur / jnp.max(blur, axis=(1, 2), keepdims=True)
    # Add Gaussian noise
    key = jax.random.PRNGKey(seed)
    noise = jax.random.normal(key, blur.shape)
    blurn = blur + noise_sigma * noise
    # Clip to [0,1] range.
    blurn = jnp.clip(blurn, 0, 1)

    if verbose:  # pragma: no cover
        platform = jax.lib.xla_bridge.get_backend().platform
        print(f"{'Platform':26s}{':':4s}{platform}")
        print(f"{'Device count':26s}{':':4s}{jax.device_count()}")
        print(f"{'Data generation':19s}{'time[s]:':10s}{time_dtgen:>7.2f}")
        print(f"{'Blur generation':19s}{'time[s]:':10s}{time_blur:>7.2f}")

    return img, blurn


def distributed_data_generation(
    imgenf: Callable, size: int, nimg: int, sharded: bool = True
) -> Array:
    """Data generation distributed among processes using jax."""
    nproc = jax.device_count()
    seeds = jnp.arange(nproc)
    if nproc > 1 and nimg % nproc > 0:
        raise ValueError("Number of images to generate must be divisible by the number of devices")

    ndata_per_proc = int(nimg // nproc)

    idx = np.arange(nproc)
    imgs = jax.vmap(imgenf, (0, None, None))(idx, size, ndata_per_proc)

    # imgs = jax.pmap(imgenf, static_broadcasted_argnums=(1, 2))(seeds, size, ndata_per_proc)

    if not sharded:
        imgs = imgs.reshape((-1, size, size, 1))

    return imgs


N = 32
nimg = 8
n = 3  # convolution kernel size
blur_kernel = np.ones((n, n)) / (n * n)

def random_img_gen(seed, size, ndata):
    np.random.seed(seed)  # expect: JIT401  # tolerate: JIT204
    return np.random.randn(ndata, size, size, 1)  # tolerate: JIT204

img, blurn = generate_blur_data(nimg, N, blur_kernel, noise_sigma=0.01, imgfunc=random_img_gen)
assert img.shape == (nimg, N, N, 1)
assert blurn.shape == (nimg, N, N, 1)
