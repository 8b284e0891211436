# source: https://github.com/Ioana-Simion/egnn-jax/blob/1dca797eab6b85ad6e8a7215016e68c71fc05c61/main_qm9.py
#   (with models/egnn_jax.py at the same commit: an E(n)-equivariant GNN in Flax trained on
#   QM9 molecules; the next commit, 825412f, adds "max_num_nodes" to static_argnames of
#   update and l1_loss)
# observed on jax 0.10.2 CPU: update_fn(...) traces update with max_num_nodes (a Python int
#   from the data statistics) as a traced argument; it travels through jax.grad(loss_fn) and
#   the jitted l1_loss into model.apply, where EGNN.__call__ reshapes by it:
#   h.reshape(-1, n_nodes, self.hidden_nf) raises TypeError "Shapes must be 1D sequences of
#   concrete values of integer type". Kept: update, l1_loss and the model file's E_GCL, EGNN
#   and segment helpers as written; left out: checkpointing, plotting, the torch data
#   loaders and argparse. Added: a stand-in batch of two padded 5-atom molecules with full
#   edge lists (what the repository's collate function builds from QM9), max_num_nodes = 5,
#   meann/mad stand-ins, and the __main__ block, which makes the calls train_model makes.
# gap: other
import jax
import jax.numpy as jnp
import flax.linen as nn
import optax
from functools import partial


# Seeding
jax_seed = jax.random.PRNGKey(42)


@partial(jax.jit, static_argnames=["loss_fn", "opt_update"])
def update(params, x, edge_attr, edge_index, pos, node_mask, max_num_nodes, target, opt_state, loss_fn, opt_update):
    #using jax grad only instead of value and grad
    grads = jax.grad(loss_fn)(params, x, edge_attr, edge_index, pos, node_mask, max_num_nodes, target)
    loss = loss_fn(params, x, edge_attr, edge_index, pos, node_mask, max_num_nodes, target)
    updates, opt_state = opt_update(grads, opt_state, params)
    return loss, optax.apply_updates(params, updates), opt_state


@partial(jax.jit, static_argnames=["model_fn", "task", "training"])
def l1_loss(params, h, edge_attr, edge_index, pos, node_mask, max_num_nodes, 
            target, model_fn, meann, mad, training=True, task="graph"):
    pred = model_fn(params, h, pos, edge_index, edge_attr, node_mask, max_num_nodes)[0]
    #target = normalize(target, meann, mad) if training else target
    #pred = normalize(pred, meann, mad) if training else pred

    assert pred.shape == target.shape, f"Shape mismatch: pred.shape = {pred.shape}, target_padded.shape = {target.shape}"
    return jnp.mean(jnp.abs(pred - target))


# ---- models/egnn_jax.py ----

def xavier_init(gain):
    def init(key, shape, dtype):
        bound = gain * jnp.sqrt(6.0 / (shape[0] + shape[1]))
        return jax.random.uniform(key, shape, dtype, -bound, bound)

    return init


class E_GCL(nn.Module):
    """
    E(n) Equivariant Message Passing Layer
    """

    hidden_nf: int
    act_fn: callable
    residual: bool

    def edge_model(self, edge_index, h, coord, edge_attr):
        #edge_attr of shape bs * max_num_edges, dim
        row, col = edge_index
        source, target = h[row], h[col] # bs*max_num_edges, dim | bs*max_num_edges, dim
        radial = self.coord2radial(edge_index, coord) # bs*max_num_edges, 1

        edge_mlp = nn.Sequential(
            [
                nn.Dense(self.hidden_nf),
                self.act_fn,
                nn.Dense(self.hidden_nf),
                self.act_fn,
            ]
        )

        out = jnp.concatenate([source, target, radial, edge_attr], axis=1)

        return edge_mlp(out) # bs*max_num_edges, hidden_nf

    def node_model(self, edge_index, edge_attr, x):
        row, col = edge_index
        agg = unsorted_segment_sum(edge_attr, row, num_segments=x.shape[0])

        node_mlp = nn.Sequential(
            [nn.Dense(self.hidden_nf), self.act_fn, nn.Dense(self.hidden_nf)]
        )

        agg = jnp.concatenate([x, agg], axis=1)
        out = node_mlp(agg)

        # TODO do we need to add x to out? to update it
        return out, agg

    def coord_model(self, edge_index, edge_feat, coord):
        row, col = edge_index
        coord_mlp = nn.Sequential(
            [
                nn.Dense(self.hidden_nf),
                self.act_fn,
                nn.Dense(1, kernel_init=xavier_init(gain=0.001)),
            ]
        )

        coord_out = coord_mlp(edge_feat) # bs*max_num_edges, 1
        trans = (coord[row] - coord[col]) * coord_out # bs*max_num_edges, 3

        agg = unsorted_segment_mean(trans, row, num_segments=coord.shape[0]) # bs*max_num_nodes, 3; nodes, not edges!!

        coord = coord + agg
        return coord

    def coord2radial(self, edge_index, coord):
        senders, receivers = edge_index
        coord_i, coord_j = coord[senders], coord[receivers]
        distance = jnp.sum((coord_i - coord_j) ** 2, axis=1, keepdims=True)
        return distance

    @nn.compact
    def __call__(self, h, edge_index, coord, edge_attr=None):
        m_ij = self.edge_model(edge_index, h, coord, edge_attr)
        h, agg = self.node_model(edge_index, m_ij, h)
        coord = self.coord_model(edge_index, m_ij, coord)
        return h, coord, m_ij


class EGNN(nn.Module):
    hidden_nf: int
    out_node_nf: int
    act_fn: callable = nn.silu  # default activation function
    n_layers: int = 4
    residual: bool = True

    @nn.compact
    def __call__(self, h, x, edges, edge_attr, node_mask, n_nodes):
        h = nn.Dense(self.hidden_nf)(h)
        for i in range(self.n_layers):
            h, x, _ = E_GCL(self.hidden_nf, act_fn=self.act_fn, residual=self.residual)(
                h, edges, x, edge_attr=edge_attr
            )  # name=f"gcl_{i}"
        h = h * node_mask[:, None]
        h = h.reshape(-1, n_nodes, self.hidden_nf)  # expect: JIT404
        h = jnp.sum(h, axis=1)
        h = nn.Dense(self.out_node_nf)(h)
        return h, x


def unsorted_segment_sum(data, segment_ids, num_segments):
    return jax.ops.segment_sum(data, segment_ids, num_segments)


def unsorted_segment_mean(data, segment_ids, num_segments):
    seg_sum = jax.ops.segment_sum(data, segment_ids, num_segments)
    seg_count = jax.ops.segment_sum(jnp.ones_like(data), segment_ids, num_segments)
    return seg_sum / seg_count


def _stand_in_batch(key, batch_size=2, max_num_nodes=5):
    # added: what the collate function makes of QM9 molecules, flattened over the batch
    k1, k2, k3, k4 = jax.random.split(key, 4)
    rows, cols = [], []
    for b in range(batch_size):
        for i in range(max_num_nodes):
            for j in range(max_num_nodes):
                if i != j:
                    rows.append(b * max_num_nodes + i)
                    cols.append(b * max_num_nodes + j)
    edge_index = jnp.array([rows, cols], dtype=jnp.int32)
    x = jax.random.uniform(k1, (batch_size * max_num_nodes, 11))
    pos = jax.random.normal(k2, (batch_size * max_num_nodes, 3))
    edge_attr = jax.random.uniform(k3, (edge_index.shape[1], 4))
    node_mask = (x.sum(axis=1) != 0).astype(jnp.float32)
    target = jax.random.normal(k4, (batch_size, 1))
    return (x, pos, edge_index, edge_attr, node_mask), target


if __name__ == "__main__":
    max_num_nodes = 5
    meann, mad = jnp.array(0.0), jnp.maximum(jnp.array(1.0), 1e-6)
    model = EGNN(hidden_nf=32, out_node_nf=1)
    init_feat, _ = _stand_in_batch(jax.random.PRNGKey(0))

    opt_init, opt_update = optax.adamw(learning_rate=5e-4, weight_decay=1e-16)
    params = model.init(jax_seed, *init_feat, max_num_nodes)
    opt_state = opt_init(params)

    loss_fn = partial(l1_loss, model_fn=model.apply, meann=meann, mad=mad, task="graph")
    update_fn = partial(update, loss_fn=loss_fn, opt_update=opt_update)

    feat, target = _stand_in_batch(jax.random.PRNGKey(1))
    x, pos, edge_index, edge_attr, node_mask = feat
    loss, params, opt_state = update_fn(params, x, edge_attr, edge_index, pos, node_mask, max_num_nodes, target=target, opt_state=opt_state)
