# source: https://github.com/obosio/STOCHASTIC_PREDICTOR/blob/a6daa0335d3e54e596ff53354c8f71a4fa7e662e/Python/kernels/kernel_a.py
# observed on jax 0.10.2 CPU: compute_koopman_spectrum and compute_paley_wiener_integral run;
#   compute_wiener_hopf_filter, jitted with no static argument, gets `order` as a tracer and
#   raises IndexError "Slice entries must be static integers" on the autocorr slice (line 101).
#   The later uses of `order` as a slice bound or size (lines 103-107) are the same missing
#   static argument, hidden by that error (tolerated). The project's next version (commit
#   efb6fce) makes `order` static (static_argnums=(1,)) and slices with lax.dynamic_slice.
# gap: other
# added: the imports, and the __main__ block that calls the three helpers the way
#   kernel_a_predict does (a 64-point signal, config values written in as numbers).
from functools import partial

import jax
import jax.numpy as jnp
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


@jax.jit
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
    autocorr = autocorr_full[n - 1 : n - 1 + order + 1] / n  # expect: JIT404

    r = autocorr[:order]  # tolerate: JIT404
    p = autocorr[1 : order + 1]  # tolerate: JIT404
    indices = jnp.abs(jnp.arange(order)[:, None] - jnp.arange(order)[None, :])  # tolerate: JIT404
    R = r[indices]
    R = R + epsilon * jnp.eye(order)  # tolerate: JIT404
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
    print(koopman_freqs, paley_wiener_integral, wiener_hopf_filter)
