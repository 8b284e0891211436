# source: https://github.com/jax-md/jax-md/blob/95365de3cff1c609dcc911c5ad916603e1eb1670/jax_md/nn.py
#   (_behler_parrinello_cutoff_fn and radial_symmetry_functions verbatim, at commit 95365de
#   "Fixed bug when Behler-Parrinello network functions were jit."; jax_md is not installed, so
#   stand-ins give space.canonicalize_displacement_or_metric (the caller passes a metric,
#   which it returns), space.map_product and util.high_precision_sum (both verbatim), and
#   Array for util.Array. The __main__ block jits the returned function for four atoms of two
#   species given as a jnp array, and for species=None)
# observed on jax 0.10.2 CPU: runs clean: species is copied to a NumPy array before the
#   function is built, so onp.unique and the species masks are NumPy values under jit.
# gap: exemption-vs-JAX
from functools import partial
from typing import Any, Callable, Optional, Tuple, Union

import numpy as onp

import jax
from jax import vmap
import jax.numpy as np
import jax.numpy as jnp

Array = Any
DisplacementOrMetricFn = Callable
f64 = jnp.float64


class space:  # stand-in for jax_md.space
  @staticmethod
  def canonicalize_displacement_or_metric(displacement_or_metric):
    return displacement_or_metric

  @staticmethod
  def map_product(metric_or_displacement: DisplacementOrMetricFn) -> DisplacementOrMetricFn:
    return vmap(vmap(metric_or_displacement, (0, None), 0), (None, 0), 0)


class util:  # stand-in for jax_md.util
  @staticmethod
  def high_precision_sum(X: Array,
                         axis: Union[Tuple[int, ...], int]=None,
                         keepdims: bool=False):
    """Sums over axes at 64-bit precision then casts back to original dtype."""
    return jnp.array(
        jnp.sum(X, axis=axis, dtype=f64, keepdims=keepdims), dtype=X.dtype)


def _behler_parrinello_cutoff_fn(dr: Array,
                                 cutoff_distance: float=8.0) -> Array:
  """Function of pairwise distance that smoothly goes to zero at the cutoff."""
  # Also returns zero if the pairwise distance is zero,
  # to prevent a particle from interacting with itself.
  return np.where((dr < cutoff_distance) & (dr > 1e-7),
                  0.5 * (np.cos(np.pi * dr / cutoff_distance) + 1), 0)


def radial_symmetry_functions(displacement_or_metric: DisplacementOrMetricFn,
                              species: Optional[Array],
                              etas: Array,
                              cutoff_distance: float
                              ) -> Callable[[Array], Array]:
  """Returns a function that computes radial symmetry functions.


  Args:
    displacement: A function that produces an `[N_atoms, M_atoms,
    spatial_dimension]` of particle displacements from particle positions
      specified as an `[N_atoms, spatial_dimension] and `[M_atoms,
      spatial_dimension]` respectively.
    species: An `[N_atoms]` that contains the species of each particle.
    etas: List of radial symmetry function parameters that control the spatial
      extension.
    cutoff_distance: Neighbors whose distance is larger than cutoff_distance do
      not contribute to each others symmetry functions. The contribution of a
      neighbor to the symmetry function and its derivative goes to zero at this
      distance.

  Returns:
    A function that computes the radial symmetry function from input `[N_atoms,
    spatial_dimension]` and returns `[N_etas, N_atoms * N_types]` where N_etas is
    the number of eta parameters, N_types is the number of types of particles 
    in the system.
  """
  metric = space.canonicalize_displacement_or_metric(displacement_or_metric)

  radial_fn = lambda eta, dr: (np.exp(-eta * dr**2) *
                               _behler_parrinello_cutoff_fn(dr, cutoff_distance))
  radial_fn = vmap(radial_fn, (0, None))

  if species is None:
    def compute_fn(R: Array, **kwargs) -> Array:
      _metric = partial(metric, **kwargs)
      _metric = space.map_product(_metric)
      return util.high_precision_sum(radial_fn(etas, _metric(R, R)), axis=1).T
  elif isinstance(species, np.ndarray):
    species = onp.array(species)
    def compute_fn(R: Array, **kwargs) -> Array:
      _metric = partial(metric, **kwargs)
      _metric = space.map_product(_metric)
      def return_radial(atom_type):
        """Returns the radial symmetry functions for neighbor type atom_type."""
        R_neigh = R[species == atom_type, :]
        dr = _metric(R, R_neigh)
        return util.high_precision_sum(radial_fn(etas, dr), axis=1).T
      return np.hstack([return_radial(atom_type) for
                        atom_type in onp.unique(species)])
  return compute_fn


if __name__ == "__main__":
  import warnings
  warnings.simplefilter("ignore", UserWarning)  # float64 sums truncated without x64

  def metric(Ra, Rb, **unused_kwargs):
    return np.sqrt(np.sum((Ra - Rb) ** 2))

  R = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
  etas = np.array([0.5, 1.0])
  for species in (np.array([0, 0, 1, 1]), None):
    sym_fn = radial_symmetry_functions(metric, species, etas, 3.0)
    out = jax.jit(sym_fn)(R)
    assert np.allclose(out, sym_fn(R))
    print(out.shape)
