# source: https://github.com/jax-md/jax-md/blob/768907add692d732a62ee6260f17f04f6811b8ac/jax_md/nn.py
#   (_behler_parrinello_cutoff_fn and radial_symmetry_functions verbatim, before commit 95365de
#   "Fixed bug when Behler-Parrinello network functions were jit."; jax_md is not installed, so
#   a two-function stand-in gives space.canonicalize_displacement_or_metric (the caller passes
#   a metric, which it returns) and space.map_product (verbatim), and Array stands in for
#   util.Array. The __main__ block jits the returned function for four atoms of two species
#   given as a jnp array, as the energy functions built on it are jitted)
# observed on jax 0.10.2 CPU: ConcretizationTypeError in np.unique(species) (np is jax.numpy):
#   under jit, unique's mask of the constant species is a tracer, so its output size is
#   unknown. The boolean mask R[species == atom_type, :] in return_radial, reached only after
#   it, is a traced mask too.
# gap: omnistaging
from functools import partial
from typing import Any, Callable

from jax import vmap
import jax
import jax.numpy as np

Array = Any
DisplacementOrMetricFn = Callable


class space:  # stand-in for jax_md.space
  @staticmethod
  def canonicalize_displacement_or_metric(displacement_or_metric):
    return displacement_or_metric

  @staticmethod
  def map_product(metric_or_displacement: DisplacementOrMetricFn) -> DisplacementOrMetricFn:
    return vmap(vmap(metric_or_displacement, (0, None), 0), (None, 0), 0)


def _behler_parrinello_cutoff_fn(dr: Array,
                                 cutoff_distance: float=8.0) -> Array:
  """Function of pairwise distance that smoothly goes to zero at the cutoff."""
  # Also returns zero if the pairwise distance is zero,
  # to prevent a particle from interacting with itself.
  return np.where((dr < cutoff_distance) & (dr > 1e-7),
                  0.5 * (np.cos(np.pi * dr / cutoff_distance) + 1), 0)


def radial_symmetry_functions(displacement_or_metric: DisplacementOrMetricFn,
                              species: Array,
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

  def compute_fun(R: Array, **kwargs) -> Array:
    _metric = partial(metric, **kwargs)
    _metric = space.map_product(_metric)
    radial_fn = lambda eta, dr: (np.exp(-eta * dr**2) *
                _behler_parrinello_cutoff_fn(dr, cutoff_distance))
    def return_radial(atom_type):
      """Returns the radial symmetry functions for neighbor type atom_type."""
      R_neigh = R[species == atom_type, :]  # tolerate: JIT403
      dr = _metric(R, R_neigh)

      radial = vmap(radial_fn, (0, None))(etas, dr)
      return np.sum(radial, axis=1).T

    return np.hstack([return_radial(atom_type) for 
                     atom_type in np.unique(species)])  # expect: JIT403

  return compute_fun


if __name__ == "__main__":
  def metric(Ra, Rb, **unused_kwargs):
    return np.sqrt(np.sum((Ra - Rb) ** 2))

  species = np.array([0, 0, 1, 1])
  R = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
  sym_fn = radial_symmetry_functions(metric, species, np.array([0.5, 1.0]), 3.0)
  print(jax.jit(sym_fn)(R))
