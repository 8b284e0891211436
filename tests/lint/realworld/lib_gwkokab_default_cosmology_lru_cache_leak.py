# source: https://github.com/kokabsc/gwkokab/commit/4f004549adf97bab994681bb63c3966a902ebe0c
#   ("fix: an attempt to address the tracer leak issue": the code is the parent commit
#   6272d4c0, src/gwkokab/cosmology/_planck.py, _cosmology.py and
#   src/gwkokab/models/redshift/_models.py, where default_cosmology() is wrapped in
#   functools.lru_cache "for JIT performance"; the commit message quotes the
#   UnexpectedTracerError raised when `sample` was traced for jit.)
# observed on jax 0.10.2 CPU: the first call of default_cosmology() happens while
#   PowerlawRedshift.sample is traced for jit (line 179), so Cosmology.__init__ builds _z,
#   _Dc and Vc as tracers and lru_cache keeps that Cosmology: after the jitted sample
#   returns, default_cosmology()._z is a DynamicJaxprTracer (float32[4002]), and the next
#   eager log_prob raises UnexpectedTracerError. Kept as gwkokab wrote it: Cosmology,
#   PLANCK_2015_Cosmology, COSMOLOGY_REGISTRY and default_cosmology (Planck13/18 entries
#   left out), _RedshiftModel and PowerlawRedshift (MadauDickinsonRedshift, the methods
#   dDLdz and DL_to_z and the z/Dc properties left out, long docstrings shortened).
#   Added: quadax.cumulative_trapezoid is a small jnp stand-in (quadax is not installed),
#   LoggedValueError is ValueError, SPEED_OF_LIGHT is gwkokab.constants' value, and the
#   __main__ block (the jitted sample, then an eager log_prob).
# gap: stale-state-attributes
import functools
import os
from types import MappingProxyType
from typing import Final, Optional

import equinox as eqx
import jax
import jax.numpy as jnp
from jax import Array, lax, random as jrd
from jax.scipy.integrate import trapezoid
from jaxtyping import ArrayLike
from numpyro.distributions import constraints, Distribution
from numpyro.distributions.util import promote_shapes, validate_sample

SPEED_OF_LIGHT: Final[float] = 299792458.0  # gwkokab.constants


class quadax:
    # stand-in for quadax.cumulative_trapezoid (1-D, initial=0.0)
    @staticmethod
    def cumulative_trapezoid(y, x, initial=0.0, axis=0):
        steps = 0.5 * (y[1:] + y[:-1]) * jnp.diff(x)
        return jnp.concatenate([jnp.array([initial], dtype=steps.dtype), jnp.cumsum(steps)])


LoggedValueError = ValueError  # stand-in for gwkokab.utils.exceptions.LoggedValueError


# TODO: A better alternative for Cosmology class that can work with JAX
class Cosmology(eqx.Module):
    """Flat ΛCDM cosmology with Mpc-based units for distances and comoving volumes."""

    Ho: ArrayLike
    OmegaKappa: ArrayLike
    OmegaLambda: ArrayLike
    OmegaMatter: ArrayLike
    OmegaRadiation: ArrayLike
    _z: ArrayLike
    _Dc: ArrayLike
    Vc: ArrayLike

    def __init__(
        self,
        Ho: ArrayLike,
        omega_matter: ArrayLike,
        omega_radiation: ArrayLike,
        omega_lambda: ArrayLike,
        max_z: float = 4.0,
        dz: float = 1e-3,
    ) -> None:
        self.Ho = Ho  # Hubble constant in m/s/Mpc
        self.OmegaMatter = omega_matter
        self.OmegaRadiation = omega_radiation
        self.OmegaLambda = omega_lambda
        self.OmegaKappa = 1.0 - (
            self.OmegaMatter + self.OmegaRadiation + self.OmegaLambda
        )

        self._z = jnp.arange(0.0, max_z + dz, dz)
        self._Dc = quadax.cumulative_trapezoid(
            self.dDcdz(self._z), x=self._z, initial=0.0, axis=0
        )
        self.Vc = quadax.cumulative_trapezoid(
            self.dVcdz(self._z, self._Dc), x=self._z, initial=0.0, axis=0
        )

    # --------- Core functions ---------
    def z_to_E(self, z: ArrayLike) -> ArrayLike:
        zp1 = 1.0 + z
        return jnp.sqrt(
            self.OmegaLambda
            + self.OmegaKappa * zp1**2
            + self.OmegaMatter * zp1**3
            + self.OmegaRadiation * zp1**4
        )

    def dDcdz(self, z: ArrayLike) -> ArrayLike:
        return (SPEED_OF_LIGHT / self.Ho) / self.z_to_E(z)

    def logdVcdz(self, z: ArrayLike, Dc: Optional[ArrayLike] = None) -> ArrayLike:
        if Dc is None:
            Dc = self.z_to_Dc(z)
        return (
            jnp.log(4.0 * jnp.pi)  # Conversion of steradians
            - 9.0 * jnp.log(10.0)  # Conversion from Mpc^3 to Gpc^3
            + 2 * jnp.log(Dc)
            + jnp.log(self.dDcdz(z))
        )

    def dVcdz(self, z: ArrayLike, Dc: Optional[ArrayLike] = None) -> ArrayLike:
        return jnp.exp(self.logdVcdz(z, Dc=Dc))

    # --------- Interpolators ---------
    def z_to_Dc(self, z: ArrayLike) -> ArrayLike:
        """Fast JAX-safe interpolation of comoving distance."""
        return jnp.interp(z, self._z, self._Dc)

    def z_to_DL(self, z: ArrayLike) -> ArrayLike:
        """Luminosity distance in Mpc."""
        return jnp.interp(z, self._z, self.DL)

    @property
    def DL(self) -> ArrayLike:
        return self._Dc * (1.0 + self._z)


def PLANCK_2015_Cosmology() -> Cosmology:
    """Cosmology: See Table 4 in arXiv:1502.01589, OmegaMatter from astropy Planck 2015"""
    h_0 = 67.74 * 1e3
    omega_m = 0.3075
    return Cosmology(h_0, omega_m, 0.0, 1.0 - omega_m)


COSMOLOGY_REGISTRY: Final = MappingProxyType(
    {
        "Planck15": PLANCK_2015_Cosmology,
    }
)


@functools.lru_cache(maxsize=1)
def default_cosmology() -> Cosmology:
    """Returns the default cosmology based on GWKOKAB_DEFAULT_COSMOLOGY.

    Cached for JIT performance.
    """
    name = os.environ.get("GWKOKAB_DEFAULT_COSMOLOGY", "Planck15")

    if name not in COSMOLOGY_REGISTRY:
        raise LoggedValueError(
            f"Invalid or unavailable cosmology: GWKOKAB_DEFAULT_COSMOLOGY={name}. "
            f"Available options: {list(COSMOLOGY_REGISTRY.keys())}"
        )

    return COSMOLOGY_REGISTRY[name]()


class _RedshiftModel(Distribution):
    def __init__(
        self,
        z_max: Array,
        batch_shape=(),
        *,
        validate_args: Optional[bool] = None,
    ):
        self.z_max = z_max
        batch_shape = lax.broadcast_shapes(jnp.shape(z_max), batch_shape)
        self._support = constraints.interval(0.0, z_max)
        super(_RedshiftModel, self).__init__(
            batch_shape=batch_shape,
            validate_args=validate_args,
        )

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """The support of the distribution, which is the interval [0, z_max]."""
        return self._support

    def log_differential_spacetime_volume(self, z: Array) -> Array:
        """Placeholder method for computing the differential spacetime volume."""
        logdVcdz = default_cosmology().logdVcdz(z)  # expect: JIT202
        log_time_dilation = -jnp.log1p(z)
        log_differential_spacetime_volume_val = (
            log_time_dilation + logdVcdz + self.log_psi_of_z(z)
        )
        return log_differential_spacetime_volume_val

    def log_norm(self) -> Array:
        """Placeholder method for computing the log normalization constant."""
        z_grid = jnp.linspace(0.0, self.z_max, 2500)
        log_differential_spacetime_volume = self.log_differential_spacetime_volume(
            z_grid
        )
        pdfs = jnp.exp(log_differential_spacetime_volume)
        norm = trapezoid(pdfs, z_grid)
        return jnp.log(norm)

    def sample(self, key, sample_shape=()):
        """Draw samples from the distribution using inverse transform sampling.

        Note: Sampling is only supported when z_max is a static scalar.
        """
        u = jrd.uniform(key, shape=sample_shape + self.batch_shape)
        z_grid = jnp.linspace(0.0, self.z_max, 10_000)
        pdfgrid = jnp.exp(self.log_differential_spacetime_volume(z_grid))
        norm = trapezoid(pdfgrid, z_grid)
        pdfgrid /= norm
        cdfgrid: Array = quadax.cumulative_trapezoid(pdfgrid, x=z_grid, initial=0.0)
        cdfgrid = cdfgrid / cdfgrid[-1]
        return jnp.interp(u, cdfgrid, z_grid)

    def log_psi_of_z(self, z: Array) -> Array:
        raise NotImplementedError("Subclasses must implement log_psi_of_z method.")

    @validate_sample
    def log_prob(self, value: Array) -> Array:
        return self.log_differential_spacetime_volume(value)


class PowerlawRedshift(_RedshiftModel):
    arg_constraints = {"kappa": constraints.real, "z_max": constraints.positive}
    pytree_data_fields = ("_support", "kappa", "z_max")

    def __init__(
        self, z_max: Array, kappa: Array, *, validate_args: Optional[bool] = None
    ):
        z_max, self.kappa = promote_shapes(z_max, kappa)
        batch_shape = lax.broadcast_shapes(jnp.shape(z_max), jnp.shape(kappa))
        super(PowerlawRedshift, self).__init__(
            z_max=z_max, batch_shape=batch_shape, validate_args=validate_args
        )

    def log_psi_of_z(self, z: Array) -> Array:
        return self.kappa * jnp.log1p(z)


if __name__ == "__main__":
    model = PowerlawRedshift(z_max=2.3, kappa=2.7)
    sample = eqx.filter_jit(model.sample)
    z = sample(jax.random.key(0), (100,))
    assert z.shape == (100,)
    # observed: line 179 stores a Cosmology built from tracers in the lru_cache
    assert isinstance(default_cosmology()._z, jax.core.Tracer), default_cosmology()._z
    try:
        model.log_prob(z)
    except jax.errors.UnexpectedTracerError:
        pass
    else:
        raise AssertionError("expected UnexpectedTracerError from the cached Cosmology")
