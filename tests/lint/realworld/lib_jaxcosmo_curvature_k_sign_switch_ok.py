# source: https://github.com/DifferentiableUniverseInitiative/jax_cosmo/blob/cf8500c2f0e174c5b132d2c53400150194dffb70/jax_cosmo/core.py
#   (Cosmology.k after cf8500c "Make Cosmology.k jitable", and transverse_comoving_distance
#   from jax_cosmo/background.py after 3e45de0 "Make transverse comoving distance jitable",
#   both at cf8500c. Reduced: Cosmology keeps __init__, its pytree flattening and the
#   properties transverse_comoving_distance reads (Omega, Omega_k, k, sqrtk); added: a class
#   standing for jax_cosmo.constants, a stand-in for radial_comoving_distance (the
#   low-redshift Hubble law instead of jax_cosmo's ODE solve), and the __main__ block)
# observed on jax 0.10.2 CPU: k is computed with jax.numpy (imported as np) from the traced
#   Omega_k and the curvature cases are chosen by lax.switch on k + 1: the jitted function
#   runs for open, flat and closed universes and agrees with the eager one.
# gap: types
import jax
import jax.numpy as np
from jax import lax
from jax.tree_util import register_pytree_node_class


class const:  # jax_cosmo.constants
    rh = 2997.92458  # h^{-1} Mpc


def radial_comoving_distance(cosmo, a):
    # stand-in for jax_cosmo.background.radial_comoving_distance (an ODE solve over the
    # background expansion): the low-redshift Hubble law, chi = R_H * z
    return const.rh * (1.0 / a - 1.0)


@register_pytree_node_class
class Cosmology:
    def __init__(self, Omega_c, Omega_b, h, n_s, sigma8, Omega_k, w0, wa, gamma=None):
        r"""
        Cosmology object, stores primary and derived cosmological parameters.

        Parameters:
        -----------
        Omega_c, float
          Cold dark matter density fraction.
        Omega_b, float
          Baryonic matter density fraction.
        h, float
          Hubble constant divided by 100 km/s/Mpc; unitless.
        n_s, float
          Primordial scalar perturbation spectral index.
        sigma8, float
          Variance of matter density perturbations at an 8 Mpc/h scale
        Omega_k, float
          Curvature density fraction.
        w0, float
          First order term of dark energy equation
        wa, float
          Second order term of dark energy equation of state
        gamma: float
          Index of the growth rate (optional)

        Notes:
        ------

        If `gamma` is specified, the emprical characterisation of growth in
        terms of  dlnD/dlna = \omega^\gamma will be used to define growth throughout.
        Otherwise the linear growth factor and growth rate will be solved by ODE.

        """
        # Store primary parameters
        self._Omega_c = Omega_c
        self._Omega_b = Omega_b
        self._h = h
        self._n_s = n_s
        self._sigma8 = sigma8
        self._Omega_k = Omega_k
        self._w0 = w0
        self._wa = wa

        self._flags = {}

        # Secondary optional parameters
        self._gamma = gamma
        self._flags["gamma_growth"] = gamma is not None

        # Create a workspace where functions can store some precomputed
        # results
        self._workspace = {}

    # Operations for flattening/unflattening representation
    def tree_flatten(self):
        params = (
            self._Omega_c,
            self._Omega_b,
            self._h,
            self._n_s,
            self._sigma8,
            self._Omega_k,
            self._w0,
            self._wa,
        )

        if self._flags["gamma_growth"]:
            params += (self._gamma,)

        return (
            params,
            self._flags,
        )

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        # Retrieve base parameters
        Omega_c, Omega_b, h, n_s, sigma8, Omega_k, w0, wa = children[:8]
        children = list(children[8:]).reverse()

        # We extract the remaining parameters in reverse order from how they
        # were inserted
        if aux_data["gamma_growth"]:
            gamma = children.pop()
        else:
            gamma = None

        return cls(
            Omega_c=Omega_c,
            Omega_b=Omega_b,
            h=h,
            n_s=n_s,
            sigma8=sigma8,
            Omega_k=Omega_k,
            w0=w0,
            wa=wa,
            gamma=gamma,
        )

    # Cosmological parameters, base and derived
    @property
    def Omega(self):
        return 1.0 - self._Omega_k

    @property
    def Omega_k(self):
        return self._Omega_k

    @property
    def k(self):
        return -np.sign(self._Omega_k).astype(np.int8)

    @property
    def sqrtk(self):
        return np.sqrt(np.abs(self._Omega_k))



def transverse_comoving_distance(cosmo, a):
    r"""Transverse comoving distance in [Mpc/h] for a given scale factor.

    Parameters
    ----------
    a : array_like
        Scale factor

    Returns
    -------
    f_k : ndarray, or float if input scalar
        Transverse comoving distance corresponding to the specified
        scale factor.

    Notes
    -----
    The transverse comoving distance depends on the curvature of the
    universe and is related to the radial comoving distance through:

    .. math::

        f_k(a) = \left\lbrace
        \begin{matrix}
        R_H \frac{1}{\sqrt{\Omega_k}}\sinh(\sqrt{|\Omega_k|}\chi(a)R_H)&
            \mbox{for }\Omega_k > 0 \\
        \chi(a)&
            \mbox{for } \Omega_k = 0 \\
        R_H \frac{1}{\sqrt{\Omega_k}} \sin(\sqrt{|\Omega_k|}\chi(a)R_H)&
            \mbox{for } \Omega_k < 0
        \end{matrix}
        \right.
    """
    index = cosmo.k + 1

    def open_universe(chi):
        return const.rh / cosmo.sqrtk * np.sinh(cosmo.sqrtk * chi / const.rh)

    def flat_universe(chi):
        return chi

    def close_universe(chi):
        return const.rh / cosmo.sqrtk * np.sin(cosmo.sqrtk * chi / const.rh)

    branches = (open_universe, flat_universe, close_universe)

    chi = radial_comoving_distance(cosmo, a)

    return lax.switch(cosmo.k + 1, branches, chi)


if __name__ == "__main__":
    a = np.linspace(0.5, 1.0, 5)
    f = jax.jit(transverse_comoving_distance)
    for Omega_k in (0.01, 0.0, -0.01):
        cosmo = Cosmology(Omega_c=0.25, Omega_b=0.05, h=0.7, n_s=0.96, sigma8=0.8,
                          Omega_k=Omega_k, w0=-1.0, wa=0.0)
        out = f(cosmo, a)
        assert out.shape == (5,)
        assert np.allclose(out, transverse_comoving_distance(cosmo, a), rtol=1e-5)

