# source: https://github.com/blackjax-devs/blackjax/blob/18530252afe5e1dbfc7cc83f7e65e3cc97ef5037/blackjax/smc/resampling.py
# observed on jax 0.10.2 CPU with blackjax 1.7.1 installed: runs clean under jit with
#   `num_samples` static. `residual` repeats indices by data-dependent counts, but
#   `jnp.repeat(..., total_repeat_length=num_samples)` fixes the output length, and the
#   key is split before its two draws. The module is kept as it was (licence header and the
#   docstring decorator left out); the jitted calls in __main__ are added.
# gap: exemption-vs-JAX
# unverifiable: needs blackjax, which the test extra does not install (verified when collected, on jax 0.10.2 with blackjax installed)
from functools import partial

import jax
import jax.numpy as jnp

from blackjax.types import Array, PRNGKey


def systematic(rng_key: PRNGKey, weights: Array, num_samples: int) -> Array:
    return _systematic_or_stratified(rng_key, weights, num_samples, True)


def stratified(rng_key: PRNGKey, weights: Array, num_samples: int) -> Array:
    return _systematic_or_stratified(rng_key, weights, num_samples, False)


def multinomial(rng_key: PRNGKey, weights: Array, num_samples: int) -> Array:
    # In practice we don't have to sort the generated uniforms, but searchsorted
    # works faster and is more stable if both inputs are sorted, so we use the
    # _sorted_uniforms from N. Chopin, but still use searchsorted instead of his
    # O(N) loop as our code is meant to work on GPU where searchsorted is
    # O(log(N)) anyway.

    n = weights.shape[0]
    linspace = _sorted_uniforms(rng_key, num_samples)
    cumsum = jnp.cumsum(weights)
    idx = jnp.searchsorted(cumsum, linspace)
    return jnp.clip(idx, 0, n - 1)


def residual(rng_key: PRNGKey, weights: Array, num_samples: int) -> Array:
    key1, key2 = jax.random.split(rng_key)
    N = weights.shape[0]
    N_sample_weights = num_samples * weights
    idx = jnp.arange(num_samples)

    integer_part = jnp.floor(N_sample_weights).astype(jnp.int32)
    sum_integer_part = jnp.sum(integer_part)

    residual_part = N_sample_weights - integer_part
    residual_sample = multinomial(
        key1, residual_part / (num_samples - sum_integer_part), num_samples
    )

    # Permutation is needed due to the concatenation happening at the last step.
    #
    # I am pretty sure we can use lower variance resamplers inside here instead
    # of multinomial, but I am not sure yet due to the loss of exchangeability,
    # and as a consequence I am playing it safe.
    residual_sample = jax.random.permutation(key2, residual_sample)

    integer_idx = jnp.repeat(
        jnp.arange(N + 1),
        jnp.concatenate([integer_part, jnp.array([num_samples - sum_integer_part])], 0),
        total_repeat_length=num_samples,
    )

    idx = jnp.where(idx >= sum_integer_part, residual_sample, integer_idx)

    return idx


def _systematic_or_stratified(
    rng_key: PRNGKey, weights: Array, num_samples: int, is_systematic: bool
) -> Array:
    n = weights.shape[0]
    if is_systematic:
        u = jax.random.uniform(rng_key, ())
    else:
        u = jax.random.uniform(rng_key, (num_samples,))
    cumsum = jnp.cumsum(weights)
    linspace = (jnp.arange(num_samples, dtype=weights.dtype) + u) / num_samples
    idx = jnp.searchsorted(cumsum, linspace)
    return jnp.clip(idx, 0, n - 1)


def _sorted_uniforms(rng_key: PRNGKey, n) -> Array:
    # Credit goes to Nicolas Chopin
    us = jax.random.uniform(rng_key, (n + 1,))
    z = jnp.cumsum(-jnp.log(us))
    return z[:-1] / z[-1]


if __name__ == "__main__":
    weights = jnp.array([0.1, 0.2, 0.3, 0.4])
    key_sys, key_strat, key_multi, key_res = jax.random.split(jax.random.PRNGKey(0), 4)
    outs = [
        jax.jit(systematic, static_argnums=2)(key_sys, weights, 10),
        jax.jit(stratified, static_argnums=2)(key_strat, weights, 10),
        jax.jit(multinomial, static_argnums=2)(key_multi, weights, 10),
        jax.jit(residual, static_argnums=2)(key_res, weights, 10),
    ]
    for idx in outs:
        assert idx.shape == (10,) and int(idx.min()) >= 0 and int(idx.max()) <= 3
