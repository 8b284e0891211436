# source: https://github.com/pyro-ppl/numpyro/blob/0b935d488056ae1775b4ab05cbe2812f51f21a4f/numpyro/util.py
#   (numpyro's `soft_vmap`, verbatim, as installed with numpyro 0.22; numpyro's Predictive
#   uses it to map over posterior samples in chunks. The __main__ block, added, jits it
#   around a small per-sample function with and without chunking and compares the results)
# observed on jax 0.10.2 CPU: runs clean under jit: `np.shape`, `np.ndim` and
#   `int(np.prod(...))` only read the static shapes of the traced leaves, and the branches
#   test Python integers computed from them.
# gap: exemption-vs-JAX
from typing import Any, Callable, Optional

import jax
from jax import lax, vmap
import jax.numpy as jnp
import numpy as np


def soft_vmap(
    fn: Callable, xs: Any, batch_ndims: int = 1, chunk_size: Optional[int] = None
) -> Any:
    """
    Vectorizing map that maps a function `fn` over `batch_ndims` leading axes
    of `xs`. This uses jax.vmap over smaller chunks of the batch dimensions
    to keep memory usage constant.

    :param callable fn: The function to map over.
    :param xs: JAX pytree (e.g. an array, a list/tuple/dict of arrays,...)
    :param int batch_ndims: The number of leading dimensions of `xs`
        to apply `fn` element-wise over them.
    :param int chunk_size: Size of each chunk of `xs`.
        Defaults to the size of batch dimensions.
    :returns: output of `fn(xs)`.
    """
    flatten_xs = jax.tree.flatten(xs)[0]
    batch_shape = np.shape(flatten_xs[0])[:batch_ndims]
    for x in flatten_xs[1:]:
        assert np.shape(x)[:batch_ndims] == batch_shape

    # we'll do map(vmap(fn), xs) and make xs.shape = (num_chunks, chunk_size, ...)
    num_chunks = batch_size = int(np.prod(batch_shape))
    prepend_shape = (batch_size,) if batch_size > 1 else ()
    xs = jax.tree.map(
        lambda x: jnp.reshape(x, prepend_shape + jnp.shape(x)[batch_ndims:]), xs
    )
    # Note: probably for the default behavior with chunk_size=None,
    # it is better to catch OOM error and reduce chunk_size by half until OOM disappears.
    chunk_size = batch_size if chunk_size is None else min(batch_size, chunk_size)
    if chunk_size > 1:
        pad = chunk_size - batch_size % chunk_size if batch_size % chunk_size else 0
        xs = jax.tree.map(
            lambda x: jnp.pad(x, ((0, pad),) + ((0, 0),) * (np.ndim(x) - 1)), xs
        )
        num_chunks = batch_size // chunk_size + int(pad > 0)
        prepend_shape = (-1,) if num_chunks > 1 else ()
        xs = jax.tree.map(
            lambda x: jnp.reshape(x, prepend_shape + (chunk_size,) + jnp.shape(x)[1:]),
            xs,
        )
        fn = vmap(fn)

    ys = lax.map(fn, xs) if num_chunks > 1 else fn(xs)
    map_ndims = int(num_chunks > 1) + int(chunk_size > 1)
    ys = jax.tree.map(
        lambda y: jnp.reshape(
            y, (int(np.prod(jnp.shape(y)[:map_ndims])),) + jnp.shape(y)[map_ndims:]
        )[:batch_size],
        ys,
    )
    return jax.tree.map(lambda y: jnp.reshape(y, batch_shape + jnp.shape(y)[1:]), ys)


if __name__ == "__main__":
    def per_sample(sample):
        # a posterior-predictive style function of one draw
        return {"mean": jnp.sum(sample["loc"] * sample["w"]), "scale": jnp.exp(sample["log_s"])}

    samples = {
        "loc": jnp.arange(60.0).reshape(4, 5, 3),
        "w": jnp.ones((4, 5, 3)),
        "log_s": jnp.linspace(-1.0, 1.0, 20).reshape(4, 5),
    }

    @jax.jit
    def predict_all(samples):
        return soft_vmap(per_sample, samples, batch_ndims=2)

    @jax.jit
    def predict_chunked(samples):
        return soft_vmap(per_sample, samples, batch_ndims=2, chunk_size=3)

    full = predict_all(samples)
    chunked = predict_chunked(samples)
    expected = jax.vmap(jax.vmap(per_sample))(samples)
    for out in (full, chunked):
        assert out["mean"].shape == (4, 5) and out["scale"].shape == (4, 5)
        assert jnp.allclose(out["mean"], expected["mean"])
        assert jnp.allclose(out["scale"], expected["scale"])
