# source: https://github.com/danielward27/flowjax/blob/aafa845020272d05bda16b0414f7cb73aa896912/flowjax/bijections/affine.py
#   (TriangularAffine before 8f8ec87 "TriangularAffine vmappable"; the Bijection base class
#   from flowjax/bijections/abc.py at the same commit. Added: the imports, Array = Any as in
#   flowjax/utils.py, and the __main__ block, which builds a stack of layers with
#   eqx.filter_vmap over keys, as flowjax's tests build the layers of a ScannableChain)
# observed on jax 0.10.2 CPU: under eqx.filter_vmap the constructor's `arr` is a batch
#   tracer, so the argument check `if jnp.any(jnp.diag(arr) < min_diag):` raises
#   TracerBoolConversionError.
# gap: other
from abc import ABC, abstractmethod
from typing import Any, Optional, Tuple

import equinox as eqx
import jax
import jax.numpy as jnp
from equinox import Module
from jax.scipy.linalg import solve_triangular

Array = Any  # Custom type for Arrays (clearer typehint)


class Bijection(ABC, Module):
    """Basic bijection class. All bijections should support conditioning variables
    (even if ignored)."""

    cond_dim: int

    @abstractmethod
    def transform(self, x: Array, condition: Optional[Array] = None) -> Array:
        """Apply transformation."""

    @abstractmethod
    def transform_and_log_abs_det_jacobian(
        self, x: Array, condition: Optional[Array] = None
    ) -> Tuple:
        """Apply transformation and compute log absolute value of the Jacobian determinant."""

    @abstractmethod
    def inverse(self, y: Array, condition: Optional[Array] = None) -> Array:
        """Invert the transformation."""

    @abstractmethod
    def inverse_and_log_abs_det_jacobian(
        self, y: Array, condition: Optional[Array] = None
    ) -> Array:
        """Invert the transformation and compute log absolute value of the Jacobian determinant."""


class TriangularAffine(Bijection):
    loc: Array
    dim: int
    cond_dim: int
    diag_idxs: Array
    tri_mask: Array
    lower: bool
    min_diag: float
    weight_log_scale: Optional[Array]
    _arr: Array
    _log_diag: Array

    def __init__(
        self,
        loc: Array,
        arr: Array,
        lower: bool = True,
        min_diag: float = 1e-6,
        weight_normalisation: bool = False,
    ):
        """
        Transformation of the form Ax + b, where A is a lower or upper triangular matrix. To
        ensure invertiblility, diagonal entries should be positive (and greater than min_diag).

        Args:
            loc (Array): Translation.
            arr (Array): Matrix.
            lower (bool, optional): Whether the mask should select the lower or upper triangular matrix (other elements ignored). Defaults to True.
            min_diag (float, optional): Minimum value on the diagonal, to ensure invertibility. Defaults to 1e-6.
            weight_log_scale (Optional[Array], optional): If provided, carry out weight normalisation, initialising log scales to the zero vector.
        """

        if (arr.ndim != 2) or (arr.shape[0] != arr.shape[1]):
            ValueError("arr must be a square, 2-dimensional matrix.")
        if jnp.any(jnp.diag(arr) < min_diag):  # expect: JIT101
            ValueError("arr diagonal entries must be greater than min_diag")

        self.dim = arr.shape[0]
        self.cond_dim = 0
        self.diag_idxs = jnp.diag_indices(self.dim)
        tri_mask = jnp.tril(jnp.ones((self.dim, self.dim), dtype=jnp.int32), k=-1)
        self.tri_mask = tri_mask if lower else tri_mask.T
        self.min_diag = min_diag
        self.lower = lower

        # inexact arrays
        self.loc = loc
        self._arr = arr
        self._log_diag = jnp.log(jnp.diag(arr) - min_diag)
        self.weight_log_scale = (
            jnp.zeros((self.dim, 1)) if weight_normalisation else None
        )

    @property
    def arr(self):
        "Get triangular array, (applies masking and min_diag constraint)."
        diag = jnp.exp(self._log_diag) + self.min_diag
        off_diag = self.tri_mask * self._arr
        arr = off_diag.at[self.diag_idxs].set(diag)

        if self.weight_log_scale is not None:
            norms = jnp.linalg.norm(arr, axis=1, keepdims=True)
            arr = jnp.exp(self.weight_log_scale) * arr / norms

        return arr

    def transform(self, x, condition=None):
        return self.arr @ x + self.loc

    def transform_and_log_abs_det_jacobian(self, x, condition=None):
        a = self.arr
        return a @ x + self.loc, jnp.log(jnp.diag(a)).sum()

    def inverse(self, y, condition=None):
        return solve_triangular(self.arr, y - self.loc, lower=self.lower)

    def inverse_and_log_abs_det_jacobian(self, y, condition=None):
        a = self.arr
        return (
            solve_triangular(a, y - self.loc, lower=self.lower),
            -jnp.log(jnp.diag(a)).sum(),
        )


if __name__ == "__main__":
    dim = 3

    def make_layer(key):
        arr = jnp.eye(dim) + 0.1 * jax.random.normal(key, (dim, dim))
        return TriangularAffine(jnp.zeros(dim), arr)

    single = make_layer(jax.random.PRNGKey(0))
    assert single.transform(jnp.ones(dim)).shape == (dim,)
    layers = eqx.filter_vmap(make_layer)(jax.random.split(jax.random.PRNGKey(1), 4))
