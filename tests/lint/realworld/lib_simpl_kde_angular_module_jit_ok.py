# source: https://github.com/TomGeorge1234/SIMPL/blob/3a1b473724b91c7ba1473eb6b5ba2fb60ec779ae/src/simpl/kde.py
#   (kde_angular verbatim, docstring shortened; _bin_indices_minuspi_pi, _circular_conv_fft_1d,
#   _wrap_minuspi_pi and _TAU copied from src/simpl/utils.py at the same commit. Added: the
#   data and the __main__ block.)
# observed on jax 0.10.2 CPU: runs clean: the asserts and branches read shapes and Python
#   defaults only, `length=n_bins` comes from a static shape, and the traced
#   kernel_bandwidth only feeds arithmetic, so calls with a new bandwidth reuse the one
#   compilation.
# gap: exemption-vs-JAX
from functools import partial

import jax
import jax.numpy as jnp
from jax import vmap

_TAU = 2 * jnp.pi


def _wrap_minuspi_pi(theta: jax.Array) -> jax.Array:
    """Wrap angles to [-pi, pi)."""
    return jnp.mod(theta + jnp.pi, _TAU) - jnp.pi


def _bin_indices_minuspi_pi(theta: jax.Array, n_bins: int) -> jax.Array:
    """Map theta in radians to integer bin indices [0, n_bins)."""
    theta = _wrap_minuspi_pi(theta)
    u = (theta + jnp.pi) * (n_bins / _TAU)  # in [0, n_bins)
    idx = jnp.floor(u).astype(jnp.int32)
    # guard against theta == pi mapping to n_bins (shouldn't happen for [-pi,pi) but safe)
    return jnp.clip(idx, 0, n_bins - 1)


def _circular_conv_fft_1d(x: jax.Array, k: jax.Array) -> jax.Array:
    """Circular convolution via FFT for 1D arrays."""
    return jnp.fft.ifft(jnp.fft.fft(x) * jnp.fft.fft(k)).real


@partial(jax.jit, static_argnames=("kernel", "return_position_density"))
def kde_angular(
    bins: jax.Array,  # (N_bins,) bin centers in [-pi, pi)
    trajectory: jax.Array,  # (T,) angles in radians
    spikes: jax.Array,  # (T, N_neurons) spike counts
    kernel=None,  # unused placeholder
    kernel_bandwidth: float = 0.3,  # std dev of smoothing kernel in radians
    mask: jax.Array | None = None,  # (T, N_neurons) boolean
    return_position_density: bool = False,
    eps: float = 1e-6,
) -> jax.Array | tuple[jax.Array, jax.Array]:
    """Circular KDE for angular data."""
    assert bins.ndim == 1 or (bins.ndim == 2 and bins.shape[1] == 1), "bins should be shape (N_bins,) or (N_bins, 1)."
    assert trajectory.ndim == 1 or (trajectory.ndim == 2 and trajectory.shape[1] == 1), (
        "trajectory should be shape (T,) or (T, 1). kde_angular only supports 1D circular data."
    )

    bins = jnp.asarray(bins).flatten()
    trajectory = jnp.asarray(trajectory).flatten()
    spikes = jnp.asarray(spikes)

    n_bins = bins.shape[0]
    assert n_bins % 2 == 0, "n_bins should be even for FFT-based circular convolution."
    T = trajectory.shape[0]
    n_neurons = spikes.shape[1]

    if mask is None:
        mask = jnp.ones((T, n_neurons), dtype=bool)
    mask_f = mask.astype(jnp.float32)

    # 1) bin indices consistent with [-pi, pi)
    idx = _bin_indices_minuspi_pi(trajectory, n_bins)  # (T,)

    # 2) von Mises kernel over offsets in [-pi, pi)
    # Build on symmetric grid => delta_theta=0 sits at index n_bins//2
    dtheta = jnp.linspace(-jnp.pi, jnp.pi, n_bins, endpoint=False)
    # Convert bandwidth (std in radians) to von Mises concentration.
    # kappa ~ 1/sigma^2 is a good approximation for kappa > 2 (sigma < ~0.7 rad).
    kappa = 1.0 / (kernel_bandwidth**2)
    vm = jnp.exp(kappa * jnp.cos(dtheta))
    vm = vm / jnp.sum(vm)

    # Align for FFT: put delta_theta=0 at index 0
    vm = jnp.roll(vm, -n_bins // 2)

    # 3) histogram per neuron using bincount (vmap over neurons)
    def hist_for_neuron(weights_t: jax.Array) -> jax.Array:
        return jnp.bincount(idx, weights=weights_t, length=n_bins)

    # occupancy: mask only (per-neuron, used internally for KDE denominator)
    pos_hist = vmap(hist_for_neuron, in_axes=1, out_axes=0)(mask_f)  # (N, B)

    # mask-free position histogram for return
    pos_hist_total = hist_for_neuron(jnp.ones(T, dtype=jnp.float32))  # (B,)

    # spikes: spikes * mask
    spike_w = spikes.astype(jnp.float32) * mask_f  # (T, N)
    spike_hist = vmap(hist_for_neuron, in_axes=1, out_axes=0)(spike_w)  # (N, B)

    # 4) smooth via circular convolution
    pos_smooth = vmap(_circular_conv_fft_1d, in_axes=(0, None), out_axes=0)(pos_hist, vm)
    spike_smooth = vmap(_circular_conv_fft_1d, in_axes=(0, None), out_axes=0)(spike_hist, vm)
    pos_smooth_total = _circular_conv_fft_1d(pos_hist_total, vm)  # (B,)

    # 5) ratio
    kde_result = spike_smooth / (pos_smooth + eps)

    if return_position_density:
        position_density = pos_smooth_total / pos_smooth_total.sum()
        return kde_result, position_density
    return kde_result


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    key_t, key_s = jax.random.split(jax.random.key(0))
    bins = jnp.linspace(-jnp.pi, jnp.pi, 36, endpoint=False)
    trajectory = jax.random.uniform(key_t, (500,), minval=-jnp.pi, maxval=jnp.pi)
    spikes = jax.random.poisson(key_s, 0.3, (500, 5))
    F = kde_angular(bins, trajectory, spikes, kernel_bandwidth=0.3)
    F2, density = kde_angular(bins, trajectory, spikes, kernel_bandwidth=0.2,
                              return_position_density=True)
    F3 = kde_angular(bins, trajectory, spikes, kernel_bandwidth=0.25)
    assert F.shape == F3.shape == (5, 36) and abs(float(density.sum()) - 1.0) < 1e-5
    assert compiles.count("jit(kde_angular)") == 2, compiles  # one per return_position_density
