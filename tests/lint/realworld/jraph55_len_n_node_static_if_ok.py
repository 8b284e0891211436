# source: https://github.com/google-deepmind/jraph/issues/55 (the reporter's example; jraph's
#   GraphsTuple, get_graph_padding_mask and its helpers as in
#   https://github.com/google-deepmind/jraph/blob/51f5990104f7374492f8f3ea1cbc47feb411c69c/jraph/_src/utils.py)
# observed on jax 0.10.2 CPU: runs clean under jax.jit; `len(graph.n_node)` is the static
#   leading dimension of an array, so `if num_graphs <= 1:` and `is ... is True` test Python
#   values at trace time, and the function compiles once per number of graphs. Added: jraph's
#   GraphsTuple (fields only), get_graph_padding_mask, get_number_of_padding_with_graphs_graphs
#   and _get_mask inlined (jraph is not installed; `jraph.` prefixes dropped), the batched
#   graph, and the jitted calls in `__main__`. The reporter's example is cut off after
#   `n_edge=`; the single graph is completed as the fields shown suggest.
# gap: exemption-vs-JAX
from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp


class GraphsTuple(NamedTuple):
  nodes: Optional[Any]
  edges: Optional[Any]
  receivers: Optional[jnp.ndarray]  # with integer dtype
  senders: Optional[jnp.ndarray]  # with integer dtype
  globals: Optional[Any]
  n_node: jnp.ndarray  # with integer dtype
  n_edge: jnp.ndarray   # with integer dtype


def get_number_of_padding_with_graphs_graphs(padded_graph):
  # The first_padding graph always has at least one padding node, and
  # all padding graphs that follow have 0 nodes. We can count how many
  # trailing graphs have 0 nodes, and add one.
  n_trailing_empty_padding_graphs = jnp.argmin(padded_graph.n_node[::-1] == 0)
  return n_trailing_empty_padding_graphs + 1


def get_graph_padding_mask(padded_graph):
  n_padding_graph = get_number_of_padding_with_graphs_graphs(padded_graph)
  total_num_graphs = padded_graph.n_node.shape[0]
  return _get_mask(padding_length=n_padding_graph, full_length=total_num_graphs)


def _get_mask(padding_length, full_length):
  valid_length = full_length - padding_length
  return jnp.arange(full_length, dtype=jnp.int32) < valid_length


def get_number_of_graphs(graph):
    """ 
    This function works for GraphsTuple and batched GraphsTuple. 
    For the latter the padding graph(s) are also counted.
    """
    return len(graph.n_node)


def is_batched_bool(graph):
    num_graphs = get_number_of_graphs(graph)
    if num_graphs <= 1:
        return False
    else:
        return True


def modified_get_graph_padding_mask(graph):
    if is_batched_bool(graph) is True:
        return get_graph_padding_mask(graph)
    else:
        return jnp.array([True])

    
graph = GraphsTuple(
    nodes=dict(
        atomic_numbers=jnp.ones((10, )),
        positions=jnp.ones((10, 3)),
        z=jnp.ones((10, 3))
    ),
    edges=None,
    receivers=jnp.arange(10),
    senders=jnp.arange(10),
    globals=dict(),
    n_node=jnp.array([10]),
    n_edge=jnp.array([10]),
)


if __name__ == "__main__":
    mask_fn = jax.jit(modified_get_graph_padding_mask)
    assert mask_fn(graph).tolist() == [True]
    batched = graph._replace(n_node=jnp.array([6, 4, 0]), n_edge=jnp.array([6, 4, 0]))
    assert mask_fn(batched).tolist() == [True, False, False]
    assert mask_fn(graph).tolist() == [True]
    assert mask_fn._cache_size() == 2
