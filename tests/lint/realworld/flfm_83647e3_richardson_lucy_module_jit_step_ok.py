# source: https://github.com/ssec-jhu/flfm/blob/83647e3f7384a80d6d57cf148c30b89022b6b90a/flfm/restoration.py
#   (a research-software group's Fourier light-field microscopy reconstruction: Richardson-Lucy
#   deconvolution of a light-field image into a stack of depth planes)
# observed on jax 0.10.2 CPU: runs clean. compute_step_f is jitted once at module level and the
#   Python loop of richardson_lucy calls it with arrays of the same shapes, so it compiles once
#   for all iterations and for later reconstructions of same-sized images; num_iter is a
#   Python int the loop reads outside the trace.
# gap: per-call-recompile
# Kept: restoration.py as written. Added: a stand-in `settings` object with DEFAULT_RL_ITERS
#   (10, flfm/settings.py's value at this commit) in place of `from flfm.settings import
#   settings`, and the __main__ block (a synthetic 3-plane PSF and light-field image).
import jax
import jax.numpy as jnp


class settings:  # added stand-in for flfm.settings.settings
    DEFAULT_RL_ITERS = 10


@jax.jit
def compute_step_f(
    data: jnp.ndarray,  # [k, n, n]
    image: jnp.ndarray,  # [1, n, n]
    PSF_fft: jnp.ndarray,  # [k, n, n/2+1]
    PSFt_fft: jnp.ndarray,  # [k, n, n/2+1]
) -> jnp.ndarray:
    """Single step of the multiplicative Richardson-Lucy deconvolution algorithm."""
    denom = jnp.fft.irfft2(PSF_fft * jnp.fft.rfft2(data)).sum(axis=0, keepdims=True)  # [1, n, n]
    img_err = image / denom
    return data * jnp.fft.fftshift(jnp.fft.irfft2(jnp.fft.rfft2(img_err) * PSFt_fft), axes=(-2, -1))  # [k, n, n]


def richardson_lucy(
    image: jnp.ndarray,  # [1, n, n]
    psf: jnp.ndarray,  # [k, n, n]
    num_iter: int = settings.DEFAULT_RL_ITERS,
    **kwargs,
) -> jnp.ndarray:
    """Reconstruct the image using the Richardson-Lucy deconvolution method."""

    if "clip" in kwargs or "filter_epsilon" in kwargs:
        raise NotImplementedError

    # We may want to make this something the use changes
    data = jnp.ones_like(psf) * 0.5  # [k, n, n]

    psf_fft = jnp.fft.rfft2(psf, axes=(-2, -1))  # [k, n, n/2+1]
    psft_fft = jnp.fft.rfft2(jnp.flip(psf, axis=(-2, -1)))  # [k, n, n/2+1]

    for _ in range(num_iter):
        data = compute_step_f(data, image, psf_fft, psft_fft).block_until_ready()

    return data


if __name__ == "__main__":
    n, k = 32, 3
    yy, xx = jnp.meshgrid(jnp.arange(n) - n // 2, jnp.arange(n) - n // 2, indexing="ij")
    # one Gaussian PSF per depth plane, wider with depth, each normalised
    psf = jnp.stack([jnp.exp(-(yy**2 + xx**2) / (2.0 * (1.0 + z) ** 2)) for z in range(k)])
    psf = psf / psf.sum(axis=(-2, -1), keepdims=True)
    obj = jnp.zeros((k, n, n)).at[:, 10:14, 18:22].set(1.0).at[1, 20:24, 8:12].set(2.0)
    psf_fft = jnp.fft.rfft2(psf, axes=(-2, -1))
    image = jnp.fft.fftshift(jnp.fft.irfft2(psf_fft * jnp.fft.rfft2(obj)), axes=(-2, -1)).sum(axis=0, keepdims=True)
    image = jnp.clip(image, 1e-6, None)

    recon = richardson_lucy(image, psf)
    assert recon.shape == (k, n, n)
    assert bool(jnp.all(jnp.isfinite(recon)))
    assert compute_step_f._cache_size() == 1
    image2 = jax.block_until_ready(image * 2.0)
    recon2 = richardson_lucy(image2, psf, num_iter=5)
    # one trace of the jitted step for all 15 iterations of both reconstructions
    assert compute_step_f._cache_size() == 1
    print("compute_step_f traced once for", 15, "iterations")
