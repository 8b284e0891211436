# source: https://github.com/google/jax-cfd/blob/a1b5b51e982d19c3ff4a9fa89fe1ff396eed5a60/jax_cfd/spectral/utils.py
#   (jax-cfd's pseudospectral helpers truncated_rfft, padded_irfft, padded_ifft_2x and
#   exponential_filter, verbatim; spectral_types.Array written as jax.Array)
# observed on jax 0.10.2 CPU: all four run under jax.jit and match their eager results:
#   `int(2 / 3 * k)` and `int(3 / 2 * n)` convert Python numbers computed from static
#   shapes, the `assert smoothed.shape == ...` compares static shapes, and
#   `-jnp.log(alpha)` with a Python default is traced but only used in arithmetic.
#   Added: the imports and the __main__ block that jits each helper on a signal.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp


def truncated_rfft(u: jax.Array) -> jax.Array:
  """Applies the 2/3 rule by truncating higher Fourier modes.

  Args:
    u: the real-space representation of the input signal

  Returns:
    Downsampled version of `u` in rfft-space.
  """
  uhat = jnp.fft.rfft(u)
  k, = uhat.shape
  final_size = int(2 / 3 * k) + 1
  return 2 / 3 * uhat[:final_size]


def padded_irfft(uhat: jax.Array) -> jax.Array:
  """Applies the 3/2 rule by padding with zeros.

  Args:
    uhat: the rfft representation of a signal

  Returns:
    An upsampled signal in real space which 3/2 times larger than the input
    signal `uhat`.
  """
  n, = uhat.shape
  final_shape = int(3 / 2 * n)
  smoothed = jnp.pad(uhat, (0, final_shape - n))
  assert smoothed.shape == (final_shape,), "incorrect padded shape"
  return 1.5 * jnp.fft.irfft(smoothed)


def padded_ifft_2x(uhat: jax.Array) -> jax.Array:
  """Applies the 2x rule to complex F[u] by padding higher frequencies.

     Pads with zeros in the Fourier domain before performing the ifft
      (effectively performing 2x interpolation in the spatial domain)

  Args:
    uhat: the fft representation of signal

  Returns:
    An upsampled signal in real space interpolated to 2x more points than
    `jax.fft.ifft(uhat)`.
  """
  n, = uhat.shape
  final_size = n + 2 * (n // 2)
  added = n // 2
  smoothed = jnp.pad(jnp.fft.fftshift(uhat), (added, added))
  assert smoothed.shape == (final_size,), "incorrect padded shape"
  return 2 * jnp.fft.ifft(jnp.fft.ifftshift(smoothed))


def exponential_filter(signal, alpha=1e-6, order=2):
  """Apply a low-pass smoothing filter to remove noise from 2D signal."""
  # Based on:
  # 1. Gottlieb and Hesthaven (2001), "Spectral methods for hyperbolic problems"
  # https://doi.org/10.1016/S0377-0427(00)00510-0
  # 2. Also, see https://arxiv.org/pdf/math/0701337.pdf --- Eq. 5

  # TODO(dresdner) save a few ffts by factoring out the actual filter, sigma.
  alpha = -jnp.log(alpha)
  n, _ = signal.shape  # TODO(dresdner) check square / handle 1D case
  kx, ky = jnp.fft.fftfreq(n), jnp.fft.rfftfreq(n)
  kx, ky = jnp.meshgrid(kx, ky, indexing="ij")
  eta = jnp.sqrt(kx**2 + ky**2)
  sigma = jnp.exp(-alpha * eta**(2 * order))
  return jnp.fft.irfft2(sigma * jnp.fft.rfft2(signal))


if __name__ == "__main__":
  x = jnp.linspace(0, 2 * jnp.pi, 64, endpoint=False)
  u = jnp.sin(3 * x) + 0.1 * jnp.cos(20 * x)

  uhat = jax.jit(truncated_rfft)(u)
  assert jnp.allclose(uhat, truncated_rfft(u), atol=1e-5)
  v = jax.jit(padded_irfft)(uhat)
  assert v.shape == padded_irfft(uhat).shape
  w = jax.jit(padded_ifft_2x)(jnp.fft.fft(u))
  assert w.shape == (128,)

  signal = jnp.sin(x)[:, None] * jnp.cos(x)[None, :]
  filtered = jax.jit(exponential_filter)(signal)
  assert jnp.allclose(filtered, exponential_filter(signal), atol=1e-5)
  print(uhat.shape, v.shape, w.shape, filtered.shape)
