# source: https://github.com/jax-ml/jax/issues/16258
# observed on jax 0.10.2 CPU: efficient_hist runs under jax.jit with bins and density static;
#   the bin edges come from traced min/max, the bincount length is len() of a traced array
#   (a Python int), and `if density:` tests a static Python bool. The counts match
#   jnp.histogram. Imports, the jit wrapper and the __main__ check are added.
# gap: exemption-vs-JAX
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array


def bincount(
    x,
    *,
    length: int,
    weights=None,
) -> Array:
    if not jnp.issubdtype(x.dtype, jnp.integer):
        raise TypeError(
            f"x argument to bincount must have an integer type; got {x.dtype}"
        )
    if weights is None:
        weights = np.array(1, dtype=jnp.int_)
    return jnp.zeros(length, weights.dtype).at[jnp.clip(x, 0)].add(weights)


def efficient_hist(
    x: jax.Array,
    bins: int = 100,
    density: bool = False,
):
    min = jnp.min(x)
    max = jnp.max(x)
    bin_edges = jnp.linspace(min, max, bins + 1)
    bin_idx = jnp.searchsorted(bin_edges, x, side="right")
    bin_idx = jnp.clip(bin_idx, 0, len(bin_edges) - 1)
    counts = bincount(bin_idx, length=len(bin_edges))[1:]
    if density:
        bin_widths = jnp.diff(bin_edges)
        counts = counts / bin_widths / jnp.sum(counts)
    return counts, bin_edges


jitted_hist = jax.jit(efficient_hist, static_argnames=("bins", "density"))


if __name__ == "__main__":
    x = jax.random.normal(jax.random.key(0), (1000,))
    counts, edges = jitted_hist(x, bins=10)
    ref_counts, ref_edges = jnp.histogram(x, bins=10)
    assert np.allclose(edges, ref_edges, atol=1e-5)
    assert int(counts.sum()) == 1000
    assert np.abs(np.asarray(counts) - np.asarray(ref_counts)).sum() <= 2
    dens, _ = jitted_hist(x, bins=10, density=True)
    assert np.isclose(float((dens * jnp.diff(edges)).sum()), 1.0, atol=1e-4)
