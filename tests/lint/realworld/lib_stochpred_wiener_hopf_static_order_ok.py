# source: https://github.com/obosio/STOCHASTIC_PREDICTOR/blob/efb6fceba01ef864120fce1ddca286d1b50a8026/Python/kernels/kernel_a.py
# observed on jax 0.10.2 CPU: the fixed helpers run under jit: `top_k` and `order` are static
#   (`order` through static_argnums=(1,), which jit maps to the keyword `order=` the caller
#   uses), `freqs.shape[0] > 1` is a shape test, min_power, epsilon and sampling_interval are
#   traced floats used only in arithmetic; the outputs match the same functions run without
#   jit, and a second call with another order compiles a second version.
# gap: static-hashability
# added: the imports, and the __main__ block that calls the three helpers the way
#   kernel_a_predict does (a 64-point signal, config values written in as numbers) and
#   compares with the unjitted functions.
from functools import partial

import jax
import jax.numpy as jnp
from jax import lax
from jaxtyping import Array, Float


@partial(jax.jit, static_argnames=("top_k",))
def compute_koopman_spectrum(
    signal: Float[Array, "n"], top_k: int, min_power: float, sampling_interval: float
) -> tuple[Float[Array, "k"], Float[Array, "k"]]:
    """
    Compute Koopman spectral modes via FFT power spectrum.

    Args:
        signal: Input time series
        top_k: Number of dominant modes to return
        min_power: Minimum power threshold

    Returns:
        (frequencies, powers) for top-k spectral modes

    References:
        - Theory.tex §2.1.5: Koopman operator and spectrum
    """
    signal_centered = signal - jnp.mean(signal)
    fft_vals = jnp.fft.rfft(signal_centered)
    power = jnp.abs(fft_vals) ** 2
    power = jnp.where(power < min_power, 0.0, power)
    freqs = jnp.fft.rfftfreq(signal.shape[0], d=sampling_interval)

    top_power, top_idx = jax.lax.top_k(power, top_k)
    top_freqs = freqs[top_idx]
    return top_freqs, top_power


@jax.jit
def compute_paley_wiener_integral(
    signal: Float[Array, "n"], epsilon: float, sampling_interval: float
) -> Float[Array, ""]:
    """
    Compute discrete Paley-Wiener integral approximation.

    Integral approximation:
        \\int |log f(omega)| / (1 + omega^2) d omega

    Args:
        signal: Input time series
        epsilon: Floor for spectral density to avoid log(0)

    Returns:
        Approximate Paley-Wiener integral value

    References:
        - Theory.tex §2.1.2: Paley-Wiener condition
    """
    signal_centered = signal - jnp.mean(signal)
    fft_vals = jnp.fft.rfft(signal_centered)
    power = (jnp.abs(fft_vals) ** 2) / signal.shape[0]
    log_power = jnp.log(jnp.maximum(power, epsilon))
    freqs = jnp.fft.rfftfreq(signal.shape[0], d=sampling_interval)

    delta = freqs[1] - freqs[0] if freqs.shape[0] > 1 else 1.0
    integrand = jnp.abs(log_power) / (1.0 + freqs**2)
    return jnp.sum(integrand) * delta


@partial(jax.jit, static_argnums=(1,))  # order must be static for dynamic_slice
def compute_wiener_hopf_filter(signal: Float[Array, "n"], order: int, epsilon: float) -> Float[Array, "order"]:
    """
    Solve Wiener-Hopf equations for optimal linear predictor filter.

    Discrete approximation:
        R h = p
    where R is Toeplitz autocorrelation matrix and p is lagged autocorrelation.

    Args:
        signal: Input time series
        order: Filter order
        epsilon: Diagonal regularization for numerical stability

    Returns:
        Wiener-Hopf filter coefficients

    References:
        - Theory.tex §2.1.2: Wiener-Hopf integral equation
    """
    signal_centered = signal - jnp.mean(signal)
    n = signal_centered.shape[0]
    autocorr_full = jnp.correlate(signal_centered, signal_centered, mode="full")
    # Use lax.dynamic_slice instead of Python slicing for JIT compatibility
    autocorr = lax.dynamic_slice(autocorr_full, start_indices=(n - 1,), slice_sizes=(order + 1,)) / n

    r = autocorr[:order]
    p = autocorr[1 : order + 1]
    indices = jnp.abs(jnp.arange(order)[:, None] - jnp.arange(order)[None, :])
    R = r[indices]
    R = R + epsilon * jnp.eye(order)
    return jnp.linalg.solve(R, p)


if __name__ == "__main__":
    signal_normalized = jnp.sin(0.3 * jnp.arange(64.0)) + 0.1 * jnp.cos(1.7 * jnp.arange(64.0))
    koopman_top_k = min(5, (signal_normalized.shape[0] // 2) + 1)
    koopman_freqs, koopman_powers = compute_koopman_spectrum(
        signal_normalized,
        top_k=koopman_top_k,
        min_power=1e-10,
        sampling_interval=1.0,
    )
    paley_wiener_integral = compute_paley_wiener_integral(
        signal_normalized,
        epsilon=1e-10,
        sampling_interval=1.0,
    )
    wiener_hopf_order = max(2, int(3))
    wiener_hopf_filter = compute_wiener_hopf_filter(
        signal_normalized,
        order=wiener_hopf_order,
        epsilon=1e-10,
    )
    ref_freqs, ref_powers = compute_koopman_spectrum.__wrapped__(signal_normalized, 5, 1e-10, 1.0)
    ref_filter = compute_wiener_hopf_filter.__wrapped__(signal_normalized, 3, 1e-10)
    assert jnp.allclose(koopman_freqs, ref_freqs) and jnp.allclose(koopman_powers, ref_powers)
    assert jnp.allclose(wiener_hopf_filter, ref_filter, atol=1e-5)
    assert jnp.isfinite(paley_wiener_integral)
    assert compute_wiener_hopf_filter(signal_normalized, order=4, epsilon=1e-10).shape == (4,)
    print(koopman_freqs, paley_wiener_integral, wiener_hopf_filter)
