# source: https://github.com/sgl-project/sglang-jax/pull/1349
#   (python/sgl_jax/srt/layers/sampler.py at 102e7ae5, "fix(sampler): replace
#   static-predicate lax.cond with `if` for seeded multinomial"; is_tpu_runtime from
#   python/sgl_jax/srt/utils/jax_utils.py at the same commit)
# observed on jax 0.10.2 CPU: the sort path of the sampler runs under jit with traced
#   probabilities, top-k/top-p/min-p parameters and need_min_p_sampling: the NaN-safe sort
#   goes through jax.pure_callback off TPU, min-p filtering is a lax.cond on the traced
#   flag, and the choice between seeded and unseeded multinomial is a Python `if` on
#   `sampling_seeds is not None`, which is decided by the pytree structure at trace time
#   (None and an array give two compilations, each with one branch). Seeded sampling is
#   deterministic per (seed, position); unseeded sampling follows the key. Kept verbatim:
#   multinomial, multinomial_with_seed, _get_sorted_indices_np, _apply_min_p_filter,
#   top_k_top_p_min_p_sampling_from_probs_jax and its sort path, is_tpu_runtime with its
#   cache global. Added: the __main__ block that jits the sampler.
# gap: exemption-vs-JAX
import jax
import numpy as np
from jax import lax
from jax import numpy as jnp
from jax import random

_IS_TPU_RUNTIME_CACHED = None


def is_tpu_runtime() -> bool:
    """Return True if the current JAX runtime is on TPU devices.

    Prefer checking actual devices; fall back to default backend if necessary.
    """
    global _IS_TPU_RUNTIME_CACHED
    if _IS_TPU_RUNTIME_CACHED is not None:
        return _IS_TPU_RUNTIME_CACHED
    try:
        devs = jax.devices()
        _IS_TPU_RUNTIME_CACHED = len(devs) > 0 and all(d.platform == "tpu" for d in devs)
    except Exception:
        _IS_TPU_RUNTIME_CACHED = jax.default_backend() == "tpu"
    return _IS_TPU_RUNTIME_CACHED


def multinomial(
    operands,
) -> jax.Array:
    inputs, _, _, rng, use_probs = operands
    if not use_probs:
        return random.categorical(rng, inputs).reshape(-1, 1)
    return random.categorical(rng, jnp.log(inputs)).reshape(-1, 1)


def multinomial_with_seed(
    operands,
) -> jax.Array:
    """
    Note:
    1. This implementation is copied from https://github.com/sgl-project/sglang/blob/e2ac7888b8cb1fd6c33a7ec58d27a5f5b5b24e0c/python/sglang/srt/layers/sampler.py#L268.
    2. Based on last response in issue, the fixed four big prime numbers can be set freely. 8589934591 is out of uin32, so I replace it with 805306457.
    - issue: https://github.com/sgl-project/sglang/issues/10938

    Samples n elements from an input array `inputs` of shape (n, m) using
    a unique random seed for each row.

    Args:
        inputs: A float array of shape (n, m) representing n categorical
                distributions with m categories each. The values are treated
                as weights and do not need to sum to 1.
        seed:   An integer array of shape (n,) containing the random seed
                for each corresponding row in `inputs`.
        positions: The positions of the tokens in the sequence.

    Returns:
        A array of shape (n,) where the i-th element is an index sampled
        from the distribution in `inputs[i]` using `seed[i]`.
    """
    inputs, seed, positions, _, use_probs = operands
    if seed is None:
        # note: this codes is used to keep compatible with lax.cond
        return multinomial(operands)
    if not use_probs:
        inputs = jax.nn.softmax(inputs, axis=-1)
    # inputs = jax.nn.softmax(logits, axis=-1)

    _, m = inputs.shape
    step_seed = seed * 19349663 ^ positions * 73856093
    seed_expanded = step_seed[:, None]
    col_indices = jnp.arange(m)[None, :]
    hashed = seed_expanded * 805306457 ^ col_indices * 479001599
    uniform_samples = (hashed % (2**24)).astype(jnp.float32) / (2**24)
    epsilon = 1e-9
    gumbel_noise = -jnp.log(-jnp.log(uniform_samples + epsilon) + epsilon)
    log_probs = jnp.log(inputs + epsilon)
    perturbed_log_probs = log_probs + gumbel_noise
    return jnp.argmax(perturbed_log_probs, axis=1, keepdims=True)


def _get_sorted_indices_np(probs_np: np.ndarray) -> np.ndarray:
    """
    CPU-side NumPy sorting index that is robust to NaNs/Infs.
    Always returns descending order indices with int32 dtype.
    """
    # 1) Map NaN -> -inf, +inf -> +inf, -inf -> -inf for stable descending order
    scores_np = np.nan_to_num(probs_np, nan=-np.inf, posinf=np.inf, neginf=-np.inf)
    # 2) argsort ascending then flip for descending
    return np.argsort(scores_np, axis=-1)[:, ::-1].astype(np.int32)


def _apply_min_p_filter(operands):
    """Apply min_p filtering when need_min_p_sampling=True"""
    inputs, min_ps, use_probs = operands
    max_per_bs = jnp.max(inputs, axis=1)
    min_p_thresholds = max_per_bs * min_ps
    min_p_mask = inputs < min_p_thresholds.reshape(-1, 1)
    return jnp.where(min_p_mask, 0.0, inputs)


def top_k_top_p_min_p_sampling_from_probs_jax(
    args,
    use_sort_for_toppk_minp,
):
    if use_sort_for_toppk_minp:
        return top_k_top_p_min_p_sampling_from_probs_jax_with_sort(args)
    return top_k_top_p_min_p_sampling_from_probs_jax_with_mask(args)


def top_k_top_p_min_p_sampling_from_probs_jax_with_sort(args):
    (
        _,
        probs,
        top_ks,
        top_ps,
        min_ps,
        positions,
        _,
        sampling_seeds,
        need_min_p_sampling,
        rng,
    ) = args

    if is_tpu_runtime():
        probs_sort = jnp.sort(probs, axis=-1)[:, ::-1]  # Sort and reverse for descending order
        probs_idx = jnp.argsort(probs, axis=-1)[:, ::-1]
    else:
        # 1) Use jax.pure_callback to compute robust descending indices on CPU
        out_spec = jnp.empty(probs.shape, dtype=jnp.int32)
        probs_idx = jax.pure_callback(
            _get_sorted_indices_np,
            out_spec,
            probs,
            vmap_method="legacy_vectorized",
        )
        # 2) Gather with sanitized probabilities (map NaNs/Infs to 0)
        sanitized_probs = jnp.nan_to_num(probs, nan=0.0, posinf=0.0, neginf=0.0)
        assert probs_idx.shape == sanitized_probs.shape and probs_idx.dtype == jnp.int32

        probs_sort = jnp.take_along_axis(sanitized_probs, probs_idx, axis=-1)

    probs_sum = jnp.cumsum(probs_sort, axis=-1)

    top_k_mask = jnp.arange(0, probs.shape[-1]).reshape(1, -1) >= top_ks.reshape(-1, 1)
    probs_sort = jnp.where(top_k_mask, 0.0, probs_sort)

    top_p_mask = (probs_sum - probs_sort) > top_ps.reshape(-1, 1)
    probs_sort = jnp.where(top_p_mask, 0.0, probs_sort)

    # Use lax.cond to avoid recompilation due to need_min_p_sampling changes
    min_p_operands = (probs_sort, min_ps)
    apply_min_p_filter_fn = lambda op: _apply_min_p_filter((*op, True))
    probs_sort = lax.cond(
        need_min_p_sampling,
        apply_min_p_filter_fn,
        lambda operands: operands[0],  # No min_p filtering, just return probs_sort
        min_p_operands,
    )

    # Static predicate (None vs array changes the input pytree): use `if`, not
    # lax.cond -- the branches' output shardings differ and cannot be unified.
    multinomial_operands = (probs_sort, sampling_seeds, positions, rng)
    if sampling_seeds is not None:
        sampled_index = multinomial_with_seed((*multinomial_operands, True))
    else:
        sampled_index = multinomial((*multinomial_operands, True))

    probs_idx = probs_idx.astype(jnp.int32)
    return jnp.take_along_axis(probs_idx, axis=1, indices=sampled_index).flatten()


if __name__ == "__main__":
    sample = jax.jit(top_k_top_p_min_p_sampling_from_probs_jax, static_argnums=(1,))
    probs = jax.nn.softmax(random.normal(random.key(0), (4, 32)), axis=-1)
    top_ks = jnp.full((4,), 8, jnp.int32)
    top_ps = jnp.full((4,), 0.9)
    min_ps = jnp.full((4,), 0.05)
    positions = jnp.arange(4, dtype=jnp.int32) + 10
    seeds = jnp.array([1, 2, 3, 4], jnp.int32)

    def args(sampling_seeds, need_min_p, key):
        return (None, probs, top_ks, top_ps, min_ps, positions, None, sampling_seeds,
                jnp.asarray(need_min_p), key)

    seeded_a = sample(args(seeds, True, random.key(1)), True)
    seeded_b = sample(args(seeds, False, random.key(2)), True)
    seeded_c = sample(args(seeds, True, random.key(3)), True)
    assert jnp.array_equal(seeded_a, seeded_c)  # the seed, not the key, decides
    unseeded_a = sample(args(None, True, random.key(1)), True)
    unseeded_b = sample(args(None, True, random.key(1)), True)
    unseeded = [sample(args(None, False, random.key(k)), True) for k in range(2, 8)]
    assert jnp.array_equal(unseeded_a, unseeded_b)
    assert any(not jnp.array_equal(unseeded[0], u) for u in unseeded[1:])
    # every sampled token survives the top-k cut
    order = jnp.argsort(-probs, axis=-1)
    for tokens in [seeded_a, seeded_b, unseeded_a] + unseeded:
        ranks = jnp.argmax(order == tokens[:, None], axis=-1)
        assert jnp.all(ranks < 8), ranks
    assert sample._cache_size() == 2, sample._cache_size()  # seeds None vs array
