# source: https://github.com/itsdaniele/jeometric/blob/fcbf6a2b89e23794cf295e139c523eb8d13d777d/examples/benchmark_gcn_molhiv.py
# observed on jax 0.10.2 CPU: see the observed line; the author measured "JIT Time: 35.7 s, Non-JIT Time: 60.1 s" for 100 steps on an RTX 3090
# gap: per-call-recompile
# observed: line 322 every train_step_jit call wraps a fresh functools.partial in jax.value_and_grad and jax.jit, so each step traces compute_loss again and compiles it again, even for batches of the same padded shape: 4 steps, 4 traces and 4 backend compiles of jit(compute_loss)
# (the jeometric library imports are replaced by trimmed copies of jeometric/data.py (Data, Batch), jeometric/util.py (get_graph_padding_mask, _batch, pad_with_graph) and jeometric/gnn.py (gcn_conv, GCNLayer) at the same commit)
# (DataReader is a stand-in that yields random 9-feature molecules of 6 or 7 atoms (all padded to 9 nodes and 16 edges) instead of reading ogbg-molhiv)
# (the two module-level benchmark runs and prints moved into __main__ with num_steps=4, plus a trace counter and a compile counter)
from typing import List, Optional, Sequence, Dict, Any
import time
import functools

import jax
import jax.numpy as jnp
from jax import tree_util
import jax.tree_util as tree
import numpy as np

import optax

from flax import linen as nn


# ---- stand-ins: trimmed copies of the jeometric library ----
OptTensor = Optional[jnp.ndarray]


class Data:
    def __init__(self, x=None, senders=None, receivers=None, edge_attr=None, y=None, glob=None):
        super().__init__()
        self.x = x
        self.senders = senders
        self.receivers = receivers
        self.edge_attr = edge_attr
        self.y = y
        self.glob = glob

    @property
    def num_nodes(self) -> int:
        return len(self.x)

    @property
    def num_edges(self) -> int:
        return len(self.senders)

    def _tree_flatten(self):
        return (self.x, self.senders, self.receivers, self.edge_attr, self.y, self.glob), None

    @classmethod
    def _tree_unflatten(cls, aux_data, children):
        return cls(*children)


class Batch(Data):
    def _add_to_batch(self, graph: Data):
        offset = jnp.sum(self.x.shape[0])
        new_x = jnp.concatenate([self.x, graph.x])
        new_senders = jnp.concatenate([self.senders, graph.senders + offset])
        new_receivers = jnp.concatenate([self.receivers, graph.receivers + offset])
        new_y = None if self.y is None else jnp.concatenate([self.y, graph.y])
        new_batch = jnp.concatenate(
            [self.batch, jnp.ones(graph.num_nodes, dtype=jnp.int32) * self.num_graphs]
        )
        return Batch(new_x, new_senders, new_receivers, None, new_y, None, new_batch)

    def __init__(self, x=None, senders=None, receivers=None, edge_attr=None, y=None, glob=None, batch=None):
        super().__init__(x, senders, receivers, edge_attr, y, glob)
        self.batch = batch
        # When using jax.jit, `self.num_graphs` is treated as a dynamic value to trace. I think this is not optimal.
        self.num_graphs = self.compute_num_graphs()

    def _tree_flatten(self):
        return (self.x, self.senders, self.receivers, self.edge_attr, self.y, self.glob, self.batch), None

    @classmethod
    def _tree_unflatten(cls, aux_data, children):
        return cls(*children)

    def compute_num_graphs(self) -> int:
        return jnp.max(self.batch) + 1


def get_graph_padding_mask(num_graphs: int) -> jnp.ndarray:
    n_padding_graph = 1
    total_num_graphs = num_graphs
    valid_length = total_num_graphs - n_padding_graph
    return jnp.arange(total_num_graphs, dtype=jnp.int32) < valid_length


def _batch(graphs: Sequence[Data]):
    offsets = jnp.cumsum(jnp.array([0] + [jnp.sum(g.num_nodes) for g in graphs[:-1]]))
    x = jnp.concatenate([g.x for g in graphs])
    senders = jnp.concatenate([g.senders + o for g, o in zip(graphs, offsets)])
    receivers = jnp.concatenate([g.receivers + o for g, o in zip(graphs, offsets)])
    y = jnp.concatenate([g.y for g in graphs])
    batch = jnp.concatenate(
        [jnp.ones(g.num_nodes, dtype=jnp.int32) * i for i, g in enumerate(graphs)]
    )
    return x, senders, receivers, None, y, None, batch


def pad_with_graph(graphs: Batch, n_node: int, n_edge: int, task: str = "node") -> Batch:
    n_graph = graphs.num_graphs + 1
    graph = jax.device_get(graphs)
    pad_n_node = int(n_node - graph.num_nodes)
    pad_n_edge = int(n_edge - graph.num_edges)
    pad_n_graph = int(n_graph - graph.num_graphs)
    if pad_n_node <= 0 or pad_n_edge < 0 or pad_n_graph <= 0:
        raise RuntimeError("Given graph is too large for the given padding.")
    graph = Data(
        x=np.zeros((pad_n_node,) + graph.x.shape[1:], dtype=graph.x.dtype),
        senders=jnp.zeros(pad_n_edge, dtype=jnp.int32),
        receivers=jnp.zeros(pad_n_edge, dtype=jnp.int32),
        y=np.zeros((pad_n_node, 1) if task == "node" else (1,), dtype=graph.y.dtype),
    )
    return graphs._add_to_batch(graph)


def gcn_conv(update_node_fn, add_self_edges=False, symmetric_normalization=True):
    def _apply(x, senders, receivers):
        x = update_node_fn(x)
        total_num_nodes = x.shape[0]
        if add_self_edges:
            conv_receivers = jnp.concatenate((receivers, jnp.arange(total_num_nodes)), axis=0)
            conv_senders = jnp.concatenate((senders, jnp.arange(total_num_nodes)), axis=0)
        else:
            conv_senders, conv_receivers = senders, receivers
        if symmetric_normalization:
            def count_edges(x):
                return jax.ops.segment_sum(jnp.ones_like(conv_senders), x, total_num_nodes)
            sender_degree = count_edges(conv_senders)
            receiver_degree = count_edges(conv_receivers)
            x = x * jax.lax.rsqrt(jnp.maximum(sender_degree, 1.0))[:, None]
            x = jax.ops.segment_sum(x[conv_senders], conv_receivers, total_num_nodes)
            return x * jax.lax.rsqrt(jnp.maximum(receiver_degree, 1.0))[:, None]
        return jax.ops.segment_sum(x[conv_senders], conv_receivers, total_num_nodes)

    return _apply


class GCNLayer(nn.Module):
    input_dim: int
    output_dim: int
    add_self_edges: bool = False
    symmetric_normalization: bool = True

    @nn.compact
    def __call__(self, x, senders, receivers):
        weight = self.param("weight", nn.initializers.xavier_uniform(), (self.input_dim, self.output_dim))
        bias = self.param("bias", nn.initializers.zeros, (self.output_dim,))

        def update_node_fn(node_features):
            return jnp.dot(node_features, weight) + bias

        return gcn_conv(update_node_fn, self.add_self_edges, self.symmetric_normalization)(x, senders, receivers)


class DataReader:
    """Stand-in: random molecules of 6 or 7 atoms with a binary graph label."""

    def __init__(self, data_path, master_csv_path, split_path, batch_size=1, seed=0):
        self._rng = np.random.default_rng(seed)
        self._batch_size = batch_size

    def __iter__(self):
        return self

    def __next__(self):
        graphs = []
        for _ in range(self._batch_size):
            n = int(self._rng.integers(6, 8))
            senders = np.arange(n - 1, dtype=np.int32)
            graphs.append(Data(
                x=jnp.asarray(self._rng.normal(size=(n, 9)), dtype=jnp.float32),
                senders=jnp.asarray(np.concatenate([senders, senders + 1])),
                receivers=jnp.asarray(np.concatenate([senders + 1, senders])),
                y=jnp.asarray([int(self._rng.integers(0, 2))], dtype=jnp.int32),
            ))
        return Batch(*_batch(graphs))
# ---- end of stand-ins ----

tree_util.register_pytree_node(Data, Data._tree_flatten, Data._tree_unflatten)
tree_util.register_pytree_node(Batch, Batch._tree_flatten, Batch._tree_unflatten)


DATA_PATH = "./ogbg-molhiv"

BATCH_SIZE = 1
INPUT_DIM = 9
HIDDEN_DIMS = [64, 128]
OUTPUT_DIM = 2


def _nearest_bigger_power_of_two(x: int) -> int:
    """Computes the nearest power of two greater than x for padding."""
    y = 2
    while y < x:
        y *= 2
    return y


def pad_graph_to_nearest_power_of_two(batch: Batch):
    """
    Adapted from https://github.com/google-deepmind/jraph/tree/master.

    Pads a `Batch` to the nearest power of two.

    For example, if a `batch` has 7 nodes, 5 edges and 3 graphs, this method
    would pad the `GraphsTuple` nodes and edges:
      7 nodes --> 8 nodes (2^3)
      5 edges --> 8 edges (2^3)

    And since padding is accomplished using `pad_with_graph`, an extra
    graph and node is added:
      8 nodes --> 9 nodes
      3 graphs --> 4 graphs

    Args:
      - batch: a `Batch` (can be batch size 1).

    Returns:
      A ``Batch`` object batched to the nearest power of two.
    """
    # Add 1 since we need at least one padding node for pad_with_graphs.
    pad_nodes_to = _nearest_bigger_power_of_two(batch.num_nodes) + 1
    pad_edges_to = _nearest_bigger_power_of_two(batch.num_edges)
    # Add 1 since we need at least one padding graph for pad_with_graphs.
    # We do not pad to nearest power of two because the batch size is fixed.
    return pad_with_graph(batch, pad_nodes_to, pad_edges_to, task="graph")


def compute_loss(params, graph, label, net, num_graphs):
    """Computes loss."""
    pred_graph = net.apply(params, graph, num_graphs)
    preds = jax.nn.log_softmax(pred_graph)
    targets = jax.nn.one_hot(label, 2)

    # Since we have an extra 'dummy' graph in our batch due to padding, we want
    # to mask out any loss associated with the dummy graph.
    # Since we padded with `pad_with_graphs` we can recover the mask by using
    # get_graph_padding_mask.

    mask = get_graph_padding_mask(num_graphs)

    loss = -jnp.sum(preds * targets * mask[:, None]) / num_graphs

    accuracy = jnp.mean(jnp.argmax(preds, axis=1) == label)
    return loss, accuracy


class GraphConvolutionalNetwork(nn.Module):
    input_dim: int
    hidden_dims: List[int]  # list of dimensions for each hidden layer
    output_dim: int
    add_self_edges: bool = False
    symmetric_normalization: bool = (True,)

    @nn.compact
    def __call__(self, graph: Data, num_graphs: int) -> Data:
        x, senders, receivers = graph.x, graph.senders, graph.receivers
        current_input_dim = self.input_dim

        for dim in self.hidden_dims:
            x = GCNLayer(
                input_dim=current_input_dim,
                output_dim=dim,
                add_self_edges=self.add_self_edges,
                symmetric_normalization=self.symmetric_normalization,
            )(x, senders, receivers)
            x = jax.nn.relu(x)
            current_input_dim = dim

        x = GCNLayer(
            input_dim=current_input_dim,
            output_dim=self.output_dim,
            add_self_edges=self.add_self_edges,
            symmetric_normalization=self.symmetric_normalization,
        )(
            x,
            senders,
            receivers,
        )

        x = jax.ops.segment_sum(x, graph.batch, num_graphs)

        return x


gcn_model = GraphConvolutionalNetwork(
    input_dim=INPUT_DIM,
    hidden_dims=HIDDEN_DIMS,
    output_dim=OUTPUT_DIM,
    add_self_edges=True,
    symmetric_normalization=True,
)

# Initialize model parameters
key = jax.random.PRNGKey(0)
train_reader = DataReader(
    data_path=DATA_PATH,
    master_csv_path=DATA_PATH + "/master.csv",
    split_path=DATA_PATH + "/train.csv.gz",
    batch_size=BATCH_SIZE,
)

params = gcn_model.init(key, next(iter(train_reader)), num_graphs=1)

# Initialize optimizer
optimizer = optax.adam(learning_rate=1e-3)
optimizer_state = optimizer.init(params)


# JIT-compiled version of train_step
def train_step_jit(
    params,
    optimizer_state: optax.OptState,
    batch: Data,
):
    batch = pad_graph_to_nearest_power_of_two(batch)
    compute_loss_fn = functools.partial(
        compute_loss, net=gcn_model, num_graphs=batch.num_graphs
    )
    compute_loss_fn = jax.jit(jax.value_and_grad(compute_loss_fn, has_aux=True))  # expect: JIT301
    (loss, acc), grad = compute_loss_fn(params, batch, batch.y)
    updates, optimizer_state = optimizer.update(grad, optimizer_state)
    params = optax.apply_updates(params, updates)
    return params, optimizer_state, loss, acc


def train_step_no_jit(params, optimizer_state: optax.OptState, batch: Data):
    compute_loss_fn = functools.partial(
        compute_loss, net=gcn_model, num_graphs=batch.num_graphs
    )
    compute_loss_fn = jax.value_and_grad(compute_loss_fn, has_aux=True)
    (loss, acc), grad = compute_loss_fn(params, batch, batch.y)
    updates, optimizer_state = optimizer.update(grad, optimizer_state)
    params = optax.apply_updates(params, updates)
    return params, optimizer_state, loss, acc


def benchmark(train_step_fn, num_steps=100):
    start_time = time.time()
    for _ in range(num_steps):
        batch = next(train_reader)
        global params, optimizer_state
        params, optimizer_state, _, _ = train_step_fn(params, optimizer_state, batch)
    return time.time() - start_time


if __name__ == "__main__":
    n_compiles = [0]
    jax.monitoring.register_event_duration_secs_listener(
        lambda ev, d, fun_name="", **kw: n_compiles.__setitem__(0, n_compiles[0] + 1)
        if ev == "/jax/core/compile/backend_compile_duration" and "compute_loss" in fun_name else None
    )
    n_traces = [0]
    _compute_loss = compute_loss

    def compute_loss(*args, **kwargs):
        n_traces[0] += 1
        return _compute_loss(*args, **kwargs)

    benchmark(train_step_jit, num_steps=1)  # warm up the eager padding ops
    t0, c0 = n_traces[0], n_compiles[0]
    jit_time = benchmark(train_step_jit, num_steps=4)
    traces, compiles = n_traces[0] - t0, n_compiles[0] - c0
    print(f"JIT Time: {jit_time} seconds; traces of compute_loss: {traces}, backend compiles of it: {compiles}")
    assert traces == 4, traces
    assert compiles == 4, compiles
    no_jit_time = benchmark(train_step_no_jit, num_steps=2)
    print(f"Non-JIT Time: {no_jit_time} seconds")
