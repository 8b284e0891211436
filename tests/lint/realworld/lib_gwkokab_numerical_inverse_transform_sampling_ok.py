# source: https://github.com/kokabsc/gwkokab/blob/e9dc94afc76d32fe781f6107426baf466ee9fd13/src/gwkokab/models/utils.py
# observed on jax 0.10.2 CPU: `numerical_inverse_transform_sampling` runs under jit with the
#   log density, sample_shape, batch_shape and n_grid_points static (as the mass models of
#   _models.py call it from `sample`): the grid size and the `if batch_shape:` branch are
#   Python values, the one key is drawn from once, and vmap over per-sample keys gives
#   distinct draws inside the limits. Kept: the function as in the file; added: the
#   __main__ block (power-law log densities, the jitted calls, the mass ratio's lower limit
#   2 / m1 instead of _models.py's mmin / m1 so that no grid collapses to a point).
# gap: other
from functools import partial

import jax
from jax import numpy as jnp
from jax.scipy.integrate import trapezoid
from jaxtyping import Array, Int, PRNGKeyArray
from numpyro.util import is_prng_key
from typing_extensions import Callable


def numerical_inverse_transform_sampling(
    logpdf: Callable[[Array], Array],
    limits: Array,
    sample_shape: tuple,
    *,
    key: PRNGKeyArray,
    batch_shape: tuple = (),
    n_grid_points: Int = 1000,
) -> Array:
    """Numerical inverse transform sampling.

    :param logpdf: log of the probability density function
    :param limits: limits of the domain
    :param n_samples: number of samples
    :param seed: random seed. defaults to None
    :param n_grid_points: number of points on grid, defaults to 1000
    :param points: length-N sequence of arrays specifying the grid coordinates.
    :param values: N-dimensional array specifying the grid values.
    :return: samples from the distribution
    """
    assert is_prng_key(key)
    grid = jnp.linspace(
        jnp.full(batch_shape, limits[0]),
        jnp.full(batch_shape, limits[1]),
        n_grid_points,
    )  # 1000 grid points
    pdf = jnp.exp(logpdf(grid))  # pdf
    pdf = pdf / trapezoid(y=pdf, x=grid, axis=0)  # normalize
    cdf = jnp.cumsum(pdf, axis=0)  # cdf
    cdf = cdf / cdf[-1]  # normalize

    u = jax.random.uniform(key, sample_shape)  # uniform samples

    interp = lambda _xp, _fp: jnp.interp(x=u, xp=_xp, fp=_fp)
    if batch_shape:
        interp = jax.vmap(interp, in_axes=(1, 1))
    samples = interp(cdf, grid)  # interpolate
    return samples  # inverse transform sampling


if __name__ == "__main__":
    def logpdf(m):
        return -2.3 * jnp.log(m)

    @partial(jax.jit, static_argnames=("n",))
    def draw(key, mmin, mmax, n):
        return numerical_inverse_transform_sampling(
            logpdf, (mmin, mmax), (n,), key=key, n_grid_points=500
        )

    @jax.jit
    def draw_q(keys, m1):
        return jax.vmap(
            lambda _m1, _k: numerical_inverse_transform_sampling(
                logpdf=lambda q: 1.5 * jnp.log(q),
                limits=(jnp.divide(2.0, _m1), 1.0),
                sample_shape=(),
                key=_k,
                n_grid_points=500,
            )
        )(m1, keys)

    key_m1, key_q = jax.random.split(jax.random.PRNGKey(0))
    m1 = draw(key_m1, 5.0, 80.0, 1000)
    assert m1.shape == (1000,) and jnp.all((m1 >= 5.0) & (m1 <= 80.0))
    q = draw_q(jax.random.split(key_q, m1.shape[0]), m1)
    assert q.shape == (1000,) and jnp.all((q >= 2.0 / m1 - 1e-6) & (q <= 1.0))
    assert jnp.unique(q).size > 900
