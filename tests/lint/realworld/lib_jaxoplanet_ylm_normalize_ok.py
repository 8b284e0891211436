# source: https://github.com/exoplanet-dev/jaxoplanet/blob/73c8aacd8e95604eae2957870b47f67e3d77cd03/src/jaxoplanet/experimental/starry/ylm.py
#   (the Ylm class as fixed by commit 73c8aac "fix: issues #234 and #235", which deletes the
#   assert on the (0, 0) coefficient in `normalize`; reported in
#   https://github.com/exoplanet-dev/jaxoplanet/issues/234. Kept verbatim: __init__, shape,
#   indices, index, normalize, tosparse, todense, from_dense and __getitem__. Cut:
#   __mul__/__rmul__ (they need the module's _mul and its Wigner3jCalculator) and
#   from_limb_darkening (it needs starry's basis, Pijk and solution modules). jaxoplanet is
#   not installed; `Array` stands for jaxoplanet.types.Array. The __main__ block builds the
#   planet's map as the MWE does inside its jitted light curve,
#   `Ylm.from_dense(jnp.array([1.0, 0, params['y10'], 0.0]))`, with x64 enabled)
# observed on jax 0.10.2 CPU: runs clean: the jitted map is normalized by the traced
#   (0, 0) coefficient with no Python test on it.
# gap: types
from collections.abc import Mapping
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental.sparse import BCOO

Array = Any  # stand-in for jaxoplanet.types.Array


class Ylm(eqx.Module):
    """Ylm object containing the spherical harmonic coefficients.

    Args:
        data (Mapping[tuple[int, int], Array], optional): dictionary of
            spherical harmonic coefficients. Defaults to {(0, 0): 1.0}.
    """

    data: dict[tuple[int, int], Array]
    """coefficients of the spherical harmonic expansion of the map in the form
    `{(l, m): coefficient}`"""

    deg: int = eqx.field(static=True)
    """The maximum degree of the spherical harmonic coefficients."""

    diagonal: bool = eqx.field(static=True)
    """Whether are orders m of the spherical harmonic coefficients are zero.
    Diagonal if only the degrees "l" are non-zero."""

    def __init__(
        self,
        data: Mapping[tuple[int, int], Array] | None = None,
    ):
        if data is None:
            data = {(0, 0): 1.0}

        self.data = dict(data)
        self.deg = max(ell for ell, _ in data.keys())
        self.diagonal = all(m == 0 for _, m in data.keys())

    @property
    def shape(self) -> tuple[int, ...]:
        """The number of coefficients in the basis. This sets the shape of
        the output of `todense`."""
        return (self.deg**2 + 2 * self.deg + 1,)

    @property
    def indices(self) -> list[tuple[int, int]]:
        """List of (l,m) indices of the spherical harmonic coefficients."""
        return list(self.data.keys())

    @staticmethod
    def index(l: Array, m: Array) -> Array:
        """Convert the degree and order of the spherical harmonic to the
        corresponding index in the coefficient array."""
        return l * (l + 1) + m

    def normalize(self) -> "Ylm":
        """Return a new Ylm instance with coefficients normalized to :math:`Y_{0,0}`.

        Returns:
            Ylm instance with normalized coefficients.

        Raises:
            ValueError: if the (0, 0) coefficient is zero.
        """
        data = {k: v / self.data[(0, 0)] for k, v in self.data.items()}
        return Ylm(data=data)

    def tosparse(self) -> BCOO:
        """Return a sparse (jax.experimental.sparse.BCOO) spherical harmonic
        coefficients vector where the spherical harmonic :math:`Y_{l, m}` is located at
        the index :math:`n = l^2 + l + m`.
        """
        indices, values = zip(*self.data.items(), strict=False)
        idx = jnp.array([Ylm.index(l, m) for l, m in indices])[:, None]
        return BCOO((jnp.asarray(values), idx), shape=self.shape)

    def todense(self) -> Array:
        """Return a dense spherical harmonic coefficients vector where the spherical
        harmonic :math:`Y_{l, m}` is located at the index :math:`n = l^2 + l + m`.
        """
        return self.tosparse().todense()

    @classmethod
    def from_dense(cls, y: Array, normalize: bool = True) -> "Ylm":
        """Create a Ylm object from a dense array of spherical harmonic coefficients
        where the spherical harmonic :math:`Y_{l, m}` is located at the index
        :math:`n = l^2 + l + m`.
        """
        data = {}
        for i, ylm in enumerate(y):
            l = int(np.floor(np.sqrt(i)))
            m = i - l * (l + 1)
            data[(l, m)] = ylm
        ylm = cls(data)
        if normalize:
            return ylm.normalize()
        else:
            return ylm

    def __getitem__(self, key) -> Array:
        assert isinstance(key, tuple)
        return self.todense()[Ylm.index(*key)]


if __name__ == "__main__":
    jax.config.update("jax_enable_x64", True)

    @jax.jit
    def body_map(params):
        y = Ylm.from_dense(jnp.array([1.0, 0, params["y10"], 0.0]))
        return y.todense()

    print(body_map({"y10": 0.3}))
