# source: https://github.com/DifferentiableUniverseInitiative/jax_cosmo/issues/132
# observed on jax 0.10.2 CPU: jax.jit(nz)(z) raises NonConcreteBooleanIndexError ("Array
#   boolean indices must be concrete; got bool[...]") at `nz.at[selection].set(0.)`: under
#   jit `z` is traced, so the mask built from it is too, and .at[mask].set turns the mask
#   into indices, whose number depends on the data. (The reporter, building an HMC pipeline,
#   hit the same error with bool[513].) The same call without jit works. Added: jax_cosmo is
#   not in the test extra, so `container` (jax_cosmo/jax_utils.py), `redshift_distribution`
#   (jax_cosmo/redshift.py) and `simps` (jax_cosmo/scipy/integrate.py) are copied from
#   jax_cosmo at c4f249f (docstrings and unused properties left out) and reached as
#   `jc.redshift...`; the reporter's class is kept without its commented-out photo-z
#   convolution; a Smail-type n(z) stands in for the reporter's `nz_gen`, with bin edges
#   and a redshift grid as inputs, and the __main__ block calls it eagerly, then under jit.
# gap: types
import types
from abc import abstractmethod

import jax
import jax.numpy as np
from jax.tree_util import register_pytree_node_class


def simps(f, a, b, N=128):
    if N % 2 == 1:
        raise ValueError("N must be an even integer.")
    dx = (b - a) / N
    x = np.linspace(a, b, N + 1)
    y = f(x)
    S = dx / 3 * np.sum(y[0:-1:2] + 4 * y[1::2] + y[2::2], axis=0)
    return S


class container(object):
    def __init__(self, *args, **kwargs):
        self.params = args
        self.config = kwargs

    def __repr__(self):
        return str(self.params)

    # Operations for flattening/unflattening representation
    def tree_flatten(self):
        children = self.params
        aux_data = self.config
        return (children, aux_data)

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(*children, **aux_data)


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

    # Operations for flattening/unflattening representation
    def tree_flatten(self):
        children = (self.params, self._gals_per_arcmin2)
        aux_data = self.config
        return (children, aux_data)

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        args, gals_per_arcmin2 = children
        return cls(*args, gals_per_arcmin2=gals_per_arcmin2, **aux_data)


jc = types.SimpleNamespace(
    redshift=types.SimpleNamespace(redshift_distribution=redshift_distribution))


@register_pytree_node_class
class binned_nz(jc.redshift.redshift_distribution):

    def __init__(self, *args, **kwargs):

        # Note we don't want to renromalise (as the definition would redifine this to default gals_per_arcmin2)
        super(binned_nz, self).__init__(*args, **kwargs)
        self._norm = 1.
    
    def pz_fn(self, z):

        lower, upper, nz_gen = self.params
        nz = nz_gen(z)


        selection = np.logical_or(z <= lower, z > upper)
        nz = nz.at[selection].set(0.)  # expect: JIT403

        return nz


if __name__ == "__main__":
    def smail(z, a=2.0, b=1.5, z0=0.5):
        return z**a * np.exp(-((z / z0) ** b))

    nz = binned_nz(0.5, 1.0, smail)
    z = np.linspace(0.0, 2.0, 513)
    print(nz(z).sum())  # eager: fine
    print(jax.jit(nz)(z).sum())  # fails
