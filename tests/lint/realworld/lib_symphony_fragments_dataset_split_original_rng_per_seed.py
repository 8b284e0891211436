# source: https://github.com/atomicarchitects/symphony/blob/80ad58c14da12da3027f2ebe647cb191db91e8c0/symphony/data/input_pipeline.py
#   (symphony, an E(3)-equivariant generative model of molecules in JAX: create_fragments_dataset
#   before commit a42129b "fix fragmenting rngs", pull request #127)
# observed on jax 0.10.2 CPU: silent. Every seed (and every pass of the endless loop)
#   splits the same original_rng again, so each of the num_seeds rounds starts from the
#   same key and fragments every structure in exactly the same order: with num_seeds=3 the
#   three rounds yield identical fragment sequences, where the seeds were meant to give
#   three different fragmentations of the dataset.
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
    max_radius: Optional[float] = None,
    nn_tolerance: Optional[float] = None,
    num_seeds: int = 1,
    transition_first: Optional[bool] = False,
    fragment_number: Optional[int] = -1,
) -> Iterator[tuple]:
    """Creates an iterator of fragments from a sequence of structures."""
    if infer_edges_with_radial_cutoff and radial_cutoff is None:
        raise ValueError("radial_cutoff must be provided if infer_edges is True.")

    def fragment_generator(rng: chex.PRNGKey):
        """Generates fragments for a split."""
        original_rng = rng

        # Loop indefinitely.
        while True:
            for _ in range(num_seeds):
                _, rng = jax.random.split(original_rng)  # expect: JIT502
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
    frags = list(itertools.islice(it, 3 * per_round))
    rounds = [frags[k * per_round:(k + 1) * per_round] for k in range(3)]
    # observed: line 78 splits the same original_rng for every seed: the three rounds are identical
    assert rounds[0] == rounds[1] == rounds[2]
    assert len({r[4] for r in rounds}) == 1
