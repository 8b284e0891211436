# source: https://github.com/atomicarchitects/symphony/blob/a42129b1eeeae4d9b88cb3d065386339af52972c/symphony/data/input_pipeline.py
#   (symphony, an E(3)-equivariant generative model of molecules in JAX: create_fragments_dataset
#   after commit a42129b "fix fragmenting rngs", pull request #127: the key is split once into
#   num_seeds keys, one per round, instead of splitting the same original_rng every round)
# observed on jax 0.10.2 CPU: runs clean; the three seeds give three different
#   fragmentations of the structures, and the endless loop then cycles through the same
#   num_seeds fragmentations, as intended (num_seeds is the number of distinct orderings).
# gap: other
# added: stand-ins for symphony's datatypes.Structures (a namedtuple with the fields the
#   function reads) and fragments.generate_fragments (it yields the growing set of visited
#   nodes in an order drawn from its rng, where the real one builds graph fragments with
#   jraph); infer_edges_with_radial_cutoff_on_positions, which needs matscipy, is a stand-in
#   that raises (the file runs with infer_edges_with_radial_cutoff=False); the imports the
#   function needs; and the __main__ block.
from typing import Iterator, NamedTuple, Optional, Sequence

import chex
import jax
import numpy as np


class _Nodes(NamedTuple):
    positions: np.ndarray


class Structures(NamedTuple):
    """Stand-in for symphony.datatypes.Structures."""
    nodes: _Nodes
    n_node: np.ndarray
    n_edge: Optional[np.ndarray] = None


class fragments:
    """Stand-in for symphony.data.fragments."""

    @staticmethod
    def generate_fragments(rng, graph, num_species, nn_tolerance, max_radius, mode,
                           heavy_first, max_targets_per_graph, transition_first):
        n = len(graph.nodes.positions)
        order = jax.random.permutation(rng, n)
        for i in range(1, n + 1):
            yield tuple(int(v) for v in order[:i])


def infer_edges_with_radial_cutoff_on_positions(structure, radial_cutoff):
    raise NotImplementedError("needs matscipy")


def create_fragments_dataset(
    rng: chex.PRNGKey,
    structures: Sequence[Structures],
    keep_indices: Sequence[int],
    num_species: int,
    infer_edges_with_radial_cutoff: bool,
    radial_cutoff: float,
    use_same_rng_across_structures: bool,
    fragment_logic: str,
    heavy_first: bool,
    max_targets_per_graph: int,
    num_seeds: int,
    max_radius: Optional[float] = None,
    nn_tolerance: Optional[float] = None,
    transition_first: Optional[bool] = False,
    fragment_number: Optional[int] = -1,
) -> Iterator[tuple]:
    """Creates an iterator of fragments from a sequence of structures."""
    if infer_edges_with_radial_cutoff and radial_cutoff is None:
        raise ValueError("radial_cutoff must be provided if infer_edges is True.")

    def fragment_generator(rng: chex.PRNGKey):
        """Generates fragments for a split."""
        rngs = jax.random.split(rng, num_seeds)

        # Loop indefinitely.
        while True:
            for rng_ndx in range(num_seeds):
                rng = rngs[rng_ndx]
                for index in keep_indices:
                    structure = structures[index]
                    if use_same_rng_across_structures:
                        structure_rng = rng
                    else:
                        rng, structure_rng = jax.random.split(rng)

                    if infer_edges_with_radial_cutoff:
                        if structure.n_edge is not None:
                            raise ValueError("Structure already has edges.")
                        structure = infer_edges_with_radial_cutoff_on_positions(
                            structure, radial_cutoff=radial_cutoff
                        )

                    frag_generator = fragments.generate_fragments(
                        rng=structure_rng,
                        graph=structure,
                        num_species=num_species,
                        nn_tolerance=nn_tolerance,
                        max_radius=max_radius,
                        mode=fragment_logic,
                        heavy_first=heavy_first,
                        max_targets_per_graph=max_targets_per_graph,
                        transition_first=transition_first,
                    )

                    if fragment_number == -1:
                        yield from frag_generator
                    else:
                        for i, frag in enumerate(frag_generator):
                            if i == fragment_number:
                                yield frag
                                break

    return fragment_generator(rng)


if __name__ == "__main__":
    import itertools

    structures = [
        Structures(nodes=_Nodes(positions=np.random.default_rng(i).normal(size=(n, 3))),
                   n_node=np.array([n]))
        for i, n in enumerate([5, 6, 7])
    ]
    per_round = 5 + 6 + 7
    it = create_fragments_dataset(
        rng=jax.random.PRNGKey(0), structures=structures, keep_indices=[0, 1, 2],
        num_species=5, infer_edges_with_radial_cutoff=False, radial_cutoff=5.0,
        use_same_rng_across_structures=False, fragment_logic="nn", heavy_first=False,
        max_targets_per_graph=1, nn_tolerance=0.1, num_seeds=3,
    )
    frags = list(itertools.islice(it, 4 * per_round))
    rounds = [frags[k * per_round:(k + 1) * per_round] for k in range(4)]
    # the three seeds give three different fragmentations ...
    assert rounds[0] != rounds[1] and rounds[1] != rounds[2] and rounds[0] != rounds[2]
    # ... and the endless loop cycles through them
    assert rounds[3] == rounds[0]
