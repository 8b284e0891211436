# source: https://github.com/AnimatedRNG/nerf-jax/blob/7464ade28d8b6730a1a5ea116fca082f0895adc0/nerf_helpers.py (fixed by commit 6d9bb163c1d9d4d97ef2d799d21f2e02fec352e3 "rng is no longer static": static_argnums=(2, 3, 4) -> (2, 4))
# observed on jax 0.10.2 CPU: ValueError: Non-hashable static arguments are not supported ... ArrayImpl, raised at the sample_pdf(...) call in __main__ (the PRNG key is passed in static position 3)
# gap: static-hashability
# (added: `from jax.ops import index, index_update` no longer exists, index_update(x, index[...], v) rewritten as x.at[...].set(v); jnp.repeat no longer takes a tuple of repeats, so `cdf.shape[:-1]` is passed as `np.array(cdf.shape[:-1])`; the torch comparison lines of the doctests and the get_ray_bundle/map_batched helpers are left out; the __main__ block is the sample_pdf doctest without its torch half)

import numpy as np
import jax
import jax.numpy as jnp
from jax import jit, vmap
import functools


@functools.partial(jit, static_argnums=(1,))
def positional_encoding(tensor, num_encoding_functions):
    frequency_bands = (
        2.0
        ** jnp.linspace(
            0.0, num_encoding_functions - 1, num_encoding_functions, dtype=jnp.float32,
        )[..., jnp.newaxis]
    )

    encoding = jnp.zeros((num_encoding_functions, 2, tensor.shape[0]))
    ten_arr = tensor[jnp.newaxis, ...]

    ten_freq = frequency_bands @ ten_arr

    encoding = encoding.at[:, 0, :].set(jnp.sin(ten_freq))
    encoding = encoding.at[:, 1, :].set(jnp.cos(ten_freq))

    if num_encoding_functions == 0:
        return tensor
    else:
        return jnp.concatenate((tensor, encoding.flatten()))


@jit
def cumprod_exclusive(tensor):
    prod = jnp.roll(jnp.cumprod(tensor, axis=-1), 1, axis=-1)
    return prod.at[..., 0].set(1.0)


@functools.partial(jit, static_argnums=(2, 3, 4))
def sample_pdf(bins, weights, num_samples, rng, det):
    weights = weights + 1e-5
    pdf = weights / jnp.sum(weights, axis=-1, keepdims=True)
    cdf = jnp.cumsum(pdf, -1)
    cdf = jnp.concatenate((jnp.zeros_like(cdf[..., :1]), cdf), -1)

    if det:
        u = jnp.linspace(0.0, 1.0, num_samples)
        u = jnp.repeat(jnp.expand_dims(u, 0), np.array(cdf.shape[:-1]), axis=0)
    else:
        u = jax.random.uniform(rng, list(cdf.shape[:-1]) + [num_samples])

    inds = vmap(
        lambda cdf_i, u_i: jnp.searchsorted(cdf_i, u_i, side="right").astype(np.int32)
    )(cdf, u)

    below = jnp.maximum(0, inds - 1)
    above = jnp.minimum(cdf.shape[-1] - 1, inds)
    inds_g = jnp.stack((below, above), axis=-1)

    cdf_g = vmap(lambda cdf_i, inds_gi: cdf_i[inds_gi])(cdf, inds_g)
    bins_g = vmap(lambda bins_i, inds_gi: bins_i[inds_gi])(bins, inds_g)

    # don't know why we have to zero out the outliers?
    clean_inds = lambda arr, cutoff: jnp.where(inds_g < cutoff, arr, 0)
    cdf_g = clean_inds(cdf_g, cdf.shape[-1])
    bins_g = clean_inds(bins_g, bins.shape[-1])

    denom = cdf_g[..., 1] - cdf_g[..., 0]
    denom = jnp.where(denom < 1e-5, 1.0, denom)

    t = (u - cdf_g[..., 0]) / denom
    samples = bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0])

    return samples


if __name__ == "__main__":
    rng = jax.random.PRNGKey(1010)

    bins_np = np.random.randn(8).reshape(2, 4).astype(np.float32) * 10
    weights_np = np.random.randn(8).reshape(2, 4).astype(np.float32) * 15

    bins = jnp.array(bins_np)
    weights = jnp.array(weights_np)
    samples = np.array(sample_pdf(bins, weights, 10, rng, True))  # expect: JIT302
