# source: https://github.com/TomGeorge1234/SIMPL/blob/3a1b473724b91c7ba1473eb6b5ba2fb60ec779ae/src/simpl/kde.py
#   (decode_observations, poisson_log_likelihood_maps and _log_factorial_gamma verbatim;
#   fit_gaussian copied from src/simpl/utils.py at the same commit. Stand-in: the package's
#   `simpl` and `simpl.utils` modules, which decode_observations imports locally, are
#   registered in sys.modules holding MAX_BATCH_ELEMENTS (64_000_000, from
#   src/simpl/__init__.py) and fit_gaussian. SIMPL._decode calls decode_observations once per
#   EM iteration (src/simpl/simpl.py). Added: the data and the __main__ block.)
# observed on jax 0.10.2 CPU: every call of decode_observations defines and jits a new local
#   _process_batch, so each EM iteration traces and compiles it again although the shapes
#   are the same: two calls, two compilations.
# gap: per-call-recompile
import sys
import types
from functools import partial

import jax
import jax.numpy as jnp
from jax.scipy.special import gammaln


@jax.jit
def fit_gaussian(x: jax.Array, likelihoods: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Fits a multivariate-Gaussian to each of T likelihood distributions over spatial bins."""
    sums = likelihoods.sum(axis=1)  # (T,)

    # Mean: weighted average via matmul
    mu = (likelihoods @ x) / sums[:, None]  # (T, D)

    # Mode: position of max likelihood
    mode = x[jnp.argmax(likelihoods, axis=1)]  # (T, D)

    # Covariance: E[xx^T] - mu mu^T (avoids (T, N_bins, D) intermediate)
    x_outer = x[:, :, None] * x[:, None, :]  # (N_bins, D, D)
    E_xxT = jnp.einsum("tb,bij->tij", likelihoods, x_outer) / sums[:, None, None]  # (T, D, D)
    cov = E_xxT - mu[:, :, None] * mu[:, None, :]  # (T, D, D)

    return mu, mode, cov


sys.modules["simpl"] = types.ModuleType("simpl")  # stand-in for the package
sys.modules["simpl"].MAX_BATCH_ELEMENTS = 64_000_000
sys.modules["simpl.utils"] = types.ModuleType("simpl.utils")
sys.modules["simpl.utils"].fit_gaussian = fit_gaussian


def _log_factorial_gamma(spikes: jax.Array) -> jax.Array:
    """Compute log(X!) via the gamma function, which is faster and more accurate than Stirling's approximation."""
    return gammaln(spikes + 1)


def poisson_log_likelihood_maps(
    spikes: jax.Array,
    mean_rate: jax.Array,
    mask: jax.Array | None = None,
) -> jax.Array:
    """Version of ``poisson_log_likelihood`` optimised to broadcast over the
    spatial binning dimension and sum over neurons."""
    if mask is None:
        mask = jnp.ones_like(spikes, dtype=bool)

    log_spikecount_factorial = _log_factorial_gamma(spikes)

    return (
        (mask * spikes) @ jnp.log(mean_rate + 1e-3)
        - mask @ mean_rate
        - jnp.sum(log_spikecount_factorial * mask, axis=1)[:, None]
    )


def decode_observations(
    xF: jax.Array,
    spikes: jax.Array,
    mean_rate: jax.Array,
    mask: jax.Array,
    batch_size: int | None = None,
    return_log_maps: bool = False,
) -> tuple:
    """Compute Poisson likelihood maps, fit Gaussian observations, and flag silent bins."""
    from simpl.utils import fit_gaussian  # local to avoid circular import

    T = spikes.shape[0]
    N_bins = xF.shape[0]
    if batch_size is None:
        from simpl import MAX_BATCH_ELEMENTS

        batch_size = max(256, MAX_BATCH_ELEMENTS // N_bins)
    batch_size = min(batch_size, T)

    @partial(jax.jit, static_argnames=("_return_log_maps",))  # expect: JIT301
    def _process_batch(xF, spikes_batch, mean_rate, mask_batch, _return_log_maps=False):
        log_maps = poisson_log_likelihood_maps(spikes_batch, mean_rate, mask=mask_batch)
        log_maps = log_maps - jnp.max(log_maps, axis=1)[:, None]  # shift max to 0 to avoid NaNs in exp
        mu, mode, sigma = fit_gaussian(xF, jnp.exp(log_maps))
        no_spk = jnp.sum(spikes_batch * mask_batch, axis=1) == 0
        if _return_log_maps:
            return mu, mode, sigma, no_spk, log_maps
        return mu, mode, sigma, no_spk

    mu_batches, mode_batches, sigma_batches, no_spike_batches = [], [], [], []
    log_map_batches = [] if return_log_maps else None

    for start in range(0, T, batch_size):
        end = min(start + batch_size, T)
        result = _process_batch(
            xF,
            spikes[start:end],
            mean_rate,
            mask[start:end],
            _return_log_maps=return_log_maps,
        )
        if return_log_maps:
            mu_b, mode_b, sigma_b, no_spk_b, log_maps_b = result
            log_map_batches.append(log_maps_b)
        else:
            mu_b, mode_b, sigma_b, no_spk_b = result
        mu_batches.append(mu_b)
        mode_batches.append(mode_b)
        sigma_batches.append(sigma_b)
        no_spike_batches.append(no_spk_b)

    mu_l = jnp.concatenate(mu_batches, axis=0)
    mode_l = jnp.concatenate(mode_batches, axis=0)
    sigma_l = jnp.concatenate(sigma_batches, axis=0)
    no_spikes = jnp.concatenate(no_spike_batches, axis=0)

    if return_log_maps:
        return mu_l, mode_l, sigma_l, no_spikes, jnp.concatenate(log_map_batches, axis=0)
    return mu_l, mode_l, sigma_l, no_spikes


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    key_x, key_y, key_f = jax.random.split(jax.random.key(0), 3)
    xF = jax.random.uniform(key_x, (50, 2))  # 50 spatial bins in 2-D
    spikes = jax.random.poisson(key_y, 0.5, (300, 8))  # 300 time bins, 8 neurons
    mask = jnp.ones(spikes.shape, dtype=bool)
    for em_iteration in range(2):  # SIMPL._decode runs once per EM iteration
        F = jax.random.uniform(jax.random.fold_in(key_f, em_iteration), (8, 50)) + 0.1
        mu_l, mode_l, sigma_l, no_spikes = decode_observations(xF, spikes, F, mask)
    assert mu_l.shape == (300, 2)
    # observed: line 89 jits a new _process_batch per call: compiled on both EM iterations
    assert compiles.count("jit(_process_batch)") == 2, compiles
