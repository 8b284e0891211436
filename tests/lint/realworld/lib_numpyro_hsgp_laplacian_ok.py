# source: https://github.com/pyro-ppl/numpyro/blob/0b935d488056ae1775b4ab05cbe2812f51f21a4f/numpyro/contrib/hsgp/laplacian.py
#   (the module's functions verbatim, docstrings shortened to their first line; the __main__
#   block is added: it jits them with `x` (and an array `ell`) traced and `m`, `dim` static;
#   a scalar `ell` stays a Python float, as in numpyro's HSGP models)
# observed on jax 0.10.2 CPU: runs clean. Under jit `jnp.ndim(x)`, `jnp.shape(x_)[-1]` and
#   `jnp.shape(ell_)` are Python values, `isinstance(ell, Array)` holds for a traced `ell`,
#   and the sizes of `jnp.arange`/`jnp.tile`/`jnp.diag` come from the static `m`; the jitted
#   results match the eager ones.
# gap: exemption-vs-JAX
from __future__ import annotations

import numpy as np

from jax import Array
import jax.numpy as jnp
from jax.typing import ArrayLike


def eigenindices(m: list[int] | int, dim: int) -> Array:
    """Returns the indices of the first :math:`D \\times m^\\star` eigenvalues of the laplacian operator."""
    if isinstance(m, int):
        m = [m] * dim
    elif len(m) != dim:
        raise ValueError("The length of m must be equal to the dimension of the space.")
    return (
        jnp.stack(
            jnp.meshgrid(*[jnp.arange(1, m_ + 1) for m_ in m], indexing="ij"), axis=-1
        )
        .reshape(-1, dim)
        .T
    )


def sqrt_eigenvalues(
    ell: ArrayLike | list[int | float], m: list[int] | int, dim: int
) -> Array:
    """The first :math:`m^\\star \\times D` square root of eigenvalues of the laplacian operator in"""
    ell_ = _convert_ell(ell, dim)
    S = eigenindices(m, dim)
    return S * jnp.pi / 2 / ell_  # dim x prod(m) array of eigenvalues


def eigenfunctions(x: ArrayLike, ell: float | list[float], m: int | list[int]) -> Array:
    """The first :math:`m^\\star` eigenfunctions of the laplacian operator in"""
    if jnp.ndim(x) == 1:
        x_ = jnp.expand_dims(x, axis=-1)
    else:
        x_ = jnp.array(x)
    dim = jnp.shape(x_)[-1]  # others assumed batch dims
    n_batch_dims = jnp.ndim(x_) - 1
    ell_ = _convert_ell(ell, dim)
    a = jnp.expand_dims(ell_, tuple(range(n_batch_dims)))
    b = jnp.expand_dims(sqrt_eigenvalues(ell_, m, dim), tuple(range(n_batch_dims)))
    return jnp.prod(
        jnp.sqrt(1 / a) * jnp.sin(b * (jnp.expand_dims(x_, axis=-1) + a)), axis=-2
    )


def eigenfunctions_periodic(x: ArrayLike, w0: ArrayLike, m: int) -> tuple[Array, Array]:
    """Basis functions for the approximation of the periodic kernel."""
    if jnp.ndim(x) > 1:
        raise ValueError(
            "Multidimensional inputs are not supported by the periodic kernel."
        )
    m1 = jnp.tile(w0 * jnp.expand_dims(x, axis=-1), m)
    m2 = jnp.diag(jnp.arange(m, dtype=jnp.float32))
    mw0x = m1 @ m2
    cosines = jnp.cos(mw0x)
    sines = jnp.sin(mw0x)
    return cosines, sines


def _convert_ell(ell: float | int | list[float | int] | ArrayLike, dim: int) -> Array:
    """Process the half-length of the approximation interval and return a `D \\times 1` array."""
    ell_ = jnp.empty((dim, 1))
    if isinstance(ell, float) | isinstance(ell, int):
        ell = jnp.array([ell] * dim)[..., None]
    if isinstance(ell, list):
        if len(ell) != dim:
            raise ValueError(
                "The length of ell must be equal to the dimension of the space."
            )
        ell_ = jnp.array(ell)[..., None]  # dim x 1 array
    elif isinstance(ell, Array) | isinstance(ell, np.ndarray):
        ell_ = jnp.array(ell)
    if jnp.shape(ell_) != (dim, 1):
        raise ValueError("ell must be a scalar or a list of length `dim`.")
    return ell_


if __name__ == "__main__":
    from functools import partial

    import jax

    x1 = jnp.linspace(-1, 1, 50)
    x3 = jnp.linspace(-1, 1, 150).reshape(50, 3)
    ell3 = jnp.array([[1.2], [1.3], [1.4]])

    basis = jax.jit(eigenfunctions, static_argnames=("ell", "m"))(x1, 1.2, m=10)
    assert basis.shape == (50, 10)
    assert jnp.allclose(basis, eigenfunctions(x1, 1.2, 10), atol=1e-5)

    basis3 = jax.jit(eigenfunctions, static_argnames="m")(x3, ell3, m=(2, 2, 3))
    assert basis3.shape == (50, 12)
    assert jnp.allclose(basis3, eigenfunctions(x3, ell3, [2, 2, 3]), atol=1e-5)

    @jax.jit
    def spectrum(ell):
        return sqrt_eigenvalues(ell, [2, 2, 3], 3)

    assert jnp.allclose(spectrum(ell3), sqrt_eigenvalues(ell3, [2, 2, 3], 3))

    periodic = jax.jit(partial(eigenfunctions_periodic, m=6))
    cosines, sines = periodic(x1, 2 * jnp.pi / 0.7)
    ref_cos, ref_sin = eigenfunctions_periodic(x1, 2 * jnp.pi / 0.7, 6)
    assert cosines.shape == (50, 6)
    assert jnp.allclose(cosines, ref_cos, atol=1e-5) and jnp.allclose(sines, ref_sin, atol=1e-5)
