# source: https://github.com/DifferentiableUniverseInitiative/jax_cosmo/blob/f2ca55b0284556306a5c101507f5104ab4c940b9/jax_cosmo/redshift.py
# observed on jax 0.10.2 CPU: runs clean. The n(z) object is a pytree (params as children,
#   the config dict as auxiliary data), so jit rebuilds a fresh object from tracers on every
#   trace; the lazy `if self._norm is None: self._norm = simps(...)` in __call__ fills only
#   that fresh object, and the caller's object keeps _norm None (no tracer leaks). A second
#   object with equal config hits the same compiled function. Added: the jitted caller and
#   the __main__ checks; `container` and `simps` are imported from jax_cosmo 0.1.0.
# gap: exemption-vs-JAX
# unverifiable: needs jax-cosmo, which the test extra does not install (verified when collected, on jax 0.10.2 with jax-cosmo installed)
from abc import ABC, abstractmethod

import jax
import jax.numpy as np
from jax.tree_util import register_pytree_node_class

from jax_cosmo.jax_utils import container
from jax_cosmo.scipy.integrate import simps

steradian_to_arcmin2 = 11818102.86004228


class redshift_distribution(container):
    def __init__(self, *args, gals_per_arcmin2=1.0, zmax=10.0, **kwargs):
        """Initialize the parameters of the redshift distribution"""
        self._norm = None
        self._gals_per_arcmin2 = gals_per_arcmin2
        super(redshift_distribution, self).__init__(*args, zmax=zmax, **kwargs)

    @abstractmethod
    def pz_fn(self, z):
        """Un-normalized n(z) function provided by sub classes"""
        pass

    def __call__(self, z):
        """Computes the normalized n(z)"""
        if self._norm is None:
            self._norm = simps(lambda t: self.pz_fn(t), 0.0, self.config["zmax"], 256)
        return self.pz_fn(z) / self._norm

    @property
    def zmax(self):
        return self.config["zmax"]

    @property
    def gals_per_arcmin2(self):
        """Returns the number density of galaxies in gals/sq arcmin
        TODO: find a better name
        """
        return self._gals_per_arcmin2

    @property
    def gals_per_steradian(self):
        """Returns the number density of galaxies in steradian"""
        return self._gals_per_arcmin2 * steradian_to_arcmin2

    # Operations for flattening/unflattening representation
    def tree_flatten(self):
        children = (self.params, self._gals_per_arcmin2)
        aux_data = self.config
        return (children, aux_data)

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        args, gals_per_arcmin2 = children
        return cls(*args, gals_per_arcmin2=gals_per_arcmin2, **aux_data)


@register_pytree_node_class
class smail_nz(redshift_distribution):
    """Defines a smail distribution with these arguments
    Parameters:
    -----------
    a:

    b:

    z0:

    gals_per_arcmin2: number of galaxies per sq arcmin
    """

    def pz_fn(self, z):
        a, b, z0 = self.params
        return z**a * np.exp(-((z / z0) ** b))


@jax.jit
def evaluate(nz, z):
    return nz(z)


if __name__ == "__main__":
    z = np.linspace(0.0, 2.0, 5)
    nz1 = smail_nz(1.0, 2.0, 1.0, gals_per_arcmin2=30.0)
    nz2 = smail_nz(1.0, 2.0, 1.0, gals_per_arcmin2=30.0)
    a = evaluate(nz1, z)
    b = evaluate(nz2, z)
    assert nz1._norm is None and nz2._norm is None
    assert evaluate._cache_size() == 1
    assert np.allclose(a, b) and np.allclose(a, smail_nz(1.0, 2.0, 1.0)(z))
