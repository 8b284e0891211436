# source: https://github.com/google-deepmind/jraph/blob/31cf4117e68e8cd26a3c2628ea03a2074ff6157c/jraph/_src/utils.py
#   (tag v0.0.6.dev0: get_node_padding_mask and the helpers it calls; GraphsTuple is the
#   NamedTuple of jraph/_src/graph.py without its docstring; docstrings are shortened, and
#   the __main__ block builds a graph padded the way pad_with_graphs pads it)
# observed on jax 0.10.2 CPU: runs clean under jit: the padding counts are traced, but the
#   mask's length comes from a feature array's shape and `if not flat_node_features:` tests a
#   Python list of leaves.
# gap: exemption-vs-JAX
from typing import Any, Iterable, Mapping, NamedTuple, Optional, Union

import jax
import jax.numpy as jnp
import jax.tree_util as tree

ArrayTree = Union[jnp.ndarray, Iterable['ArrayTree'], Mapping[Any, 'ArrayTree']]


class GraphsTuple(NamedTuple):
  nodes: Optional[ArrayTree]
  edges: Optional[ArrayTree]
  receivers: Optional[jnp.ndarray]  # with integer dtype
  senders: Optional[jnp.ndarray]  # with integer dtype
  globals: Optional[ArrayTree]
  n_node: jnp.ndarray  # with integer dtype
  n_edge: jnp.ndarray   # with integer dtype


def get_number_of_padding_with_graphs_graphs(
    padded_graph: GraphsTuple) -> int:
  """Returns number of padding graphs in padded_graph."""
  # The first_padding graph always has at least one padding node, and
  # all padding graphs that follow have 0 nodes. We can count how many
  # trailing graphs have 0 nodes, and add one.
  n_trailing_empty_padding_graphs = jnp.argmin(padded_graph.n_node[::-1] == 0)
  return n_trailing_empty_padding_graphs + 1


def get_number_of_padding_with_graphs_nodes(
    padded_graph: GraphsTuple) -> int:
  """Returns number of padding nodes in given padded_graph."""
  return padded_graph.n_node[
      -get_number_of_padding_with_graphs_graphs(padded_graph)]


def get_node_padding_mask(padded_graph: GraphsTuple) -> ArrayTree:
  """Returns a mask for the nodes of a padded graph."""
  n_padding_node = get_number_of_padding_with_graphs_nodes(padded_graph)
  flat_node_features = tree.tree_leaves(padded_graph.nodes)
  if not flat_node_features:
    raise ValueError(
        '`padded_graph` must have at least one array of node features')
  total_num_nodes = flat_node_features[0].shape[0]
  return _get_mask(padding_length=n_padding_node, full_length=total_num_nodes)


def _get_mask(padding_length, full_length):
  valid_length = full_length - padding_length
  return jnp.arange(full_length, dtype=jnp.int32) < valid_length


if __name__ == "__main__":
  # one real graph of 3 nodes, one padding graph of 2 nodes, one empty padding graph
  padded = GraphsTuple(
      nodes={'x': jnp.ones((5, 4))},
      edges=jnp.ones((3, 1)),
      receivers=jnp.array([0, 1, 0], dtype=jnp.int32),
      senders=jnp.array([1, 2, 0], dtype=jnp.int32),
      globals=jnp.ones((3, 1)),
      n_node=jnp.array([3, 2, 0], dtype=jnp.int32),
      n_edge=jnp.array([2, 1, 0], dtype=jnp.int32),
  )
  mask = jax.jit(get_node_padding_mask)(padded)
  assert mask.tolist() == [True, True, True, False, False], mask
