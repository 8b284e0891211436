# source: https://github.com/rajarshi99/gnn-jax/blob/3edfd77a5ee6fe4b1bdc99f731b2ed5469fabbcc/examples/cylinderflow/meshgraphnet.py
#   (a MeshGraphNet reproduction of DeepMind's CylinderFlow in Flax, with the repository's
#   src/gnn_jax/normalizer.py, mlp.py and gnn_layer.py at the same commit, "Transferred
#   tracking of max accumulations": the Welford normalizer's traced slice x_flat[:n_batch]
#   and `assert count_new > 0` are gone, and the cap on accumulations is checked in Python)
# observed on jax 0.10.2 CPU: runs clean; train_step and accumulate_stats are jitted once
#   inside main and close over model and tx; the Welford update of the "stats" collection
#   runs under jit with mutable=["stats"], n_batch is a static row count, and the cap
#   `int(stats["edge_norm"]["count"]) < 1_000_000` is read on the host between steps.
#   Added: a stand-in trajectory (a 4x4 grid mesh with both-way edges, 6 random velocity
#   frames, node types), NodeType as an IntEnum stand-in, a small config dict in place of
#   argparse + YAML + TFRecord decoding (main takes cfg and traj instead), `return params,
#   stats` at the end of main, and the __main__ block. The normalizer's int64/float64
#   variables are int32/float32 without x64.
# gap: exemption-vs-JAX
import enum

import jax
import jax.numpy as jnp
import optax
from flax import linen as nn

from typing import Sequence, Callable


class NodeType(enum.IntEnum):
    # added stand-in: the codes of gnn_jax/data/deepmind_cylinderflow.py
    NORMAL = 0
    OBSTACLE = 1
    AIRFOIL = 2
    HANDLE = 3
    INFLOW = 4
    OUTFLOW = 5
    WALL_BOUNDARY = 6
    SIZE = 9


# ---- src/gnn_jax/normalizer.py ----

class Normalizer(nn.Module):
    """
    Online normalizer based on Welford's algo
    Accumulates statistics from DATA
    No trainable parameters
    """

    feature_dim: int
    eps: float = 1e-8

    def setup(self):
        self.count = self.variable(
                "stats", "count",
                lambda: jnp.array(0, dtype=jnp.int64)
                )
        self.mean = self.variable(
                "stats", "mean",
                lambda: jnp.zeros(self.feature_dim, dtype=jnp.float64)
                )
        self.M2 = self.variable(
                "stats", "M2",
                lambda: jnp.zeros(self.feature_dim, dtype=jnp.float64)
                )
        self.std = self.variable(
                "stats", "std",
                lambda: jnp.ones(self.feature_dim, dtype=jnp.float64)
                )


    # ------------------------------------------------------------------
    # statistics update (DATA ONLY)
    # ------------------------------------------------------------------

    def accumulate(self, x: jnp.ndarray):
        """
        CHECK THE LOGIC ONCE AGAIN
        Accumulate statistics from data.

        x: [..., feature_dim]
        returns number of features accumulated
        """
        if x.shape[-1] != self.feature_dim:
            raise ValueError("Feature dimension mismatch")

        # flatten all leading dims
        x_batch = x.reshape(-1, self.feature_dim)
        n_batch = x_batch.shape[0]

        # Calculate new count
        count_new = self.count.value + n_batch

        # Calculate new mean
        mean_batch = jnp.mean(x_batch, axis=0)
        delta = mean_batch - self.mean.value
        mean_new = self.mean.value + delta*n_batch/count_new

        # Calculate new M2
        diff = x_batch - mean_batch
        M2_batch = jnp.sum(diff*diff, axis=0)
        M2_new = self.M2.value + M2_batch + delta*delta * self.count.value*n_batch/count_new

        # Calculate new std
        var = M2_new/count_new
        std_new = jnp.sqrt(jnp.maximum(var,self.eps))

        self.count.value = count_new
        self.mean.value = mean_new
        self.M2.value = M2_new
        self.std.value = std_new

    # ------------------------------------------------------------------
    # transforms
    # ------------------------------------------------------------------

    def normalize(self, x: jnp.ndarray) -> jnp.ndarray:
        """
        Normalize using current statistics.
        """
        return (x - self.mean.value) / self.std.value

    def denormalize(self, z: jnp.ndarray) -> jnp.ndarray:
        """
        Inverse transform back to physical space.
        """
        return z * self.std.value + self.mean.value


# ---- src/gnn_jax/mlp.py ----

class MLP(nn.Module):
    """
    Multilayer Perceptron (MLP)

    Parameters
    - layer_sizes: list of integers
        Output sizes of each of the layers, including final
    - activations: list of functions
        To be applied at each layer including final

    Note:
        Input size is fixed at init from the #cols of dummy input x
        model = MLP(layer_sizes = [32, 3], activations = [nn.relu]*2)
        params = model.init(key, x)
    """
    layer_sizes: Sequence[int]
    activations: Sequence[Callable[[jnp.ndarray], jnp.ndarray]]

    @nn.compact
    def __call__(self, x:jnp.ndarray):
        diff_in_lens = len(self.layer_sizes) - len(self.activations)
        if diff_in_lens > 0:
            activations = self.activations + (jax.nn.identity,)*diff_in_lens
        else:
            activations = self.activations

        for act, lsize in zip(activations, self.layer_sizes):
            x = act(nn.Dense(features=lsize)(x))

        return x


# ---- src/gnn_jax/gnn_layer.py ----

class GNNLayer(nn.Module):
    msg: Callable
    node_update: Callable
    edge_update: Callable

    @nn.compact
    def __call__(self, h, e, senders, receivers):
        hs = h[senders]
        hr = h[receivers]
        m_in = jnp.concatenate([e, hs, hr], axis=-1)
        m = self.msg(m_in)

        agg = jax.ops.segment_sum(m, receivers, num_segments=h.shape[0])
        # u_in = jnp.concatenate([h, agg], axis=-1)
        # dh = self.upd_mlp(u_in)

        h_new = self.node_update(h, agg)
        e_new = self.edge_update(e, m)
        return h_new, e_new


# ---- examples/cylinderflow/meshgraphnet.py ----

class NodeUpdate(nn.Module):
    """
    Inputs
        -Node embeddings/feats
        -Aggregated messages
    Returns: Updated Node Embeddings with residual connection
    """
    latent_dim: int
    num_hidden_layers: int

    @nn.compact
    def __call__(self, h, agg):
        x = jnp.concatenate([h, agg], axis=-1)
        dh = MLP(
            [self.latent_dim]*self.num_hidden_layers + [h.shape[-1]],
            [nn.relu]*self.num_hidden_layers
        )(x)
        return h + dh # Residual connection

class MeshGraphNet(nn.Module):
    latent_dim: int = 128
    message_passing_steps: int = 15
    node_type_dim: int = 9   # NORMAL..WALL_BOUNDARY
    edge_feat_dim: int = 3   # dx, dy, dist

    def setup(self):
        self.node_norm = Normalizer(feature_dim=self.node_type_dim+2, name="node_norm")
        self.edge_norm = Normalizer(feature_dim=self.edge_feat_dim, name="edge_norm")
        self.out_data_norm = Normalizer(feature_dim=2, name="out_data_norm")

        self.gnn_layers = [
                GNNLayer(
                    msg=MLP([self.latent_dim]*2, [nn.relu]*1, name=f"msg_{l}"),
                    node_update=NodeUpdate(
                        latent_dim=self.latent_dim,
                        num_hidden_layers=1,
                        name=f"node_{l}"
                        ),
                    edge_update=lambda e, m: e+m, # Residual connection
                    name=f"gnn_{l}"
                    )
                for l in range(self.message_passing_steps)
                ]

        self.node_enc = MLP([self.latent_dim]*2, [nn.relu]*1, name="node_enc")
        self.edge_enc = MLP([self.latent_dim]*2, [nn.relu]*1, name="edge_enc")
        self.dec = MLP([self.latent_dim]*1 + [2], [nn.relu]*1, name="dec")

    def __call__(self, node_in, edge_in, senders, receivers):
        h = self.node_enc(self.node_norm.normalize(node_in))
        e = self.edge_enc(self.edge_norm.normalize(edge_in))

        for gnn_layer in self.gnn_layers:
            h, e = gnn_layer(h, e, senders, receivers)

        # decoder outputs delta_v (dvx, dvy)
        delta_v = self.dec(h)
        return self.out_data_norm.denormalize(delta_v)

    def accumulate_norms(self, node_in, edge_in, delta_v_gt):
        self.node_norm.accumulate(node_in)
        self.edge_norm.accumulate(edge_in)
        self.out_data_norm.accumulate(delta_v_gt)

# -------------------------
# Training utilities
# -------------------------

def create_variables(rng, model):
    # dummy init (only feature dims matter)
    N = 4
    E = 6
    node_dim = 2 + model.node_type_dim
    node_in = jnp.zeros((N, node_dim), dtype=jnp.float32)
    edge_in = jnp.zeros((E, model.edge_feat_dim), dtype=jnp.float32)
    senders = jnp.zeros((E,), dtype=jnp.int32)
    receivers = jnp.zeros((E,), dtype=jnp.int32)

    variables = model.init(rng, node_in, edge_in, senders, receivers)
    return variables["params"], variables["stats"]

# -------------------------
# Main
# -------------------------

def main(cfg, traj):
    latent_dim = int(cfg["model"].get("latent_dim", 128))
    mp_steps = int(cfg["model"].get("message_passing_steps", 8))
    lr = float(cfg["train"].get("learning_rate", 1e-4))
    steps = int(cfg["train"].get("steps", 5000))
    seed = int(cfg["train"].get("seed", 0))
    num_types = NodeType.SIZE

    # Convert required arrays to JAX once
    mesh_pos = jnp.asarray(traj["mesh_pos"][0], dtype=jnp.float32)       # (N,2)
    node_type = jnp.asarray(traj["node_type"][0, :, 0], dtype=jnp.int32) # (N,)
    vel = jnp.asarray(traj["velocity"], dtype=jnp.float32)               # (T,N,2)
    senders = jnp.asarray(traj["senders"], dtype=jnp.int32)              # (E,)
    receivers = jnp.asarray(traj["receivers"], dtype=jnp.int32)          # (E,)

    N = mesh_pos.shape[0]
    T = vel.shape[0]

    # --- Edge features: dx, dy, dist ---
    rel = mesh_pos[receivers] - mesh_pos[senders]                         # (E,2)
    dist = jnp.linalg.norm(rel, axis=1, keepdims=True)                    # (E,1)
    edge_in = jnp.concatenate([rel, dist], axis=1).astype(jnp.float32)    # (E,3)

    # --- Node type one-hot ---
    node_type_oh = jax.nn.one_hot(node_type, num_classes=num_types, dtype=jnp.float32)  # (N,num_types)

    # --- Loss mask: only NORMAL and OUTFLOW nodes ---
    mask = (
            (node_type == NodeType.NORMAL) |
            (node_type == NodeType.OUTFLOW)
            ).astype(jnp.float32)        # (N,)

    # --- Model/state ---
    model = MeshGraphNet(latent_dim=latent_dim, message_passing_steps=mp_steps, node_type_dim=num_types)
    rng = jax.random.PRNGKey(seed)
    rng, init_rng = jax.random.split(rng)
    params, stats = create_variables(init_rng, model)
    tx = optax.adam(lr)
    opt_state = tx.init(params)

    @jax.jit
    def train_step(params, stats, opt_state,
                   node_in, edge_in, senders, receivers, target_delta_v, mask):

        def loss_fn(params):
            vars_ = {"params": params, "stats": stats}
            pred_delta_v = model.apply(
                vars_, node_in, edge_in, senders, receivers
            )
            err = pred_delta_v - target_delta_v
            mse = jnp.sum((err ** 2) * mask[:, None]) / (jnp.sum(mask) + 1e-8)
            return mse

        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)

        return params, opt_state, loss

    @jax.jit
    def accumulate_stats(stats, node_in, edge_in, target_delta_v):
        vars_ = {"params": {}, "stats": stats}
        _, mutated = model.apply(
            vars_,
            node_in, edge_in, target_delta_v,
            method=MeshGraphNet.accumulate_norms,
            mutable=["stats"],
        )
        return mutated["stats"]

    # --- Train by sampling (t -> t+1) from the ONE trajectory ---
    for step in range(steps):
        rng, sub = jax.random.split(rng)
        t = int(jax.random.randint(sub, (), 0, T - 1))
        v_t = vel[t]       # (N,2)
        v_t1 = vel[t + 1]  # (N,2)
        target_delta_v = v_t1 - v_t
        node_in = jnp.concatenate([v_t, node_type_oh], axis=-1)

        if int(stats["edge_norm"]["count"]) < 1_000_000:
            stats = accumulate_stats(stats, node_in, edge_in, target_delta_v)

        # train params
        params, opt_state, loss = train_step(
            params, stats, opt_state,
            node_in, edge_in, senders, receivers,
            target_delta_v, mask
        )

        if step % 100 == 0:
            print(f"step {step:06d} | loss {float(loss):.6e}")

    print("Done (first trajectory only).")
    return params, stats


def _stand_in_trajectory(key, side=4, T=6):
    # added: a small mesh in the layout trajectory_iterator_np returns
    import numpy as np
    xs, ys = np.meshgrid(np.arange(side), np.arange(side))
    mesh_pos = np.stack([xs.ravel(), ys.ravel()], axis=1).astype(np.float32) / side
    senders, receivers = [], []
    for i in range(side):
        for j in range(side):
            a = i * side + j
            for b in ([a + 1] if j + 1 < side else []) + ([a + side] if i + 1 < side else []):
                senders += [a, b]
                receivers += [b, a]
    node_type = np.zeros((side * side,), np.int32)
    node_type[:side] = NodeType.INFLOW
    node_type[-side:] = NodeType.OUTFLOW
    velocity = np.asarray(jax.random.normal(key, (T, side * side, 2)))
    return {
        "mesh_pos": mesh_pos[None],
        "node_type": node_type[None, :, None],
        "velocity": velocity,
        "senders": np.array(senders, np.int32),
        "receivers": np.array(receivers, np.int32),
    }


if __name__ == "__main__":
    cfg = {"model": {"latent_dim": 16, "message_passing_steps": 2},
           "train": {"learning_rate": 1e-4, "steps": 3, "seed": 0}}
    traj = _stand_in_trajectory(jax.random.PRNGKey(1))
    params, stats = main(cfg, traj)
    n_nodes, n_edges = 16, 48
    assert int(stats["edge_norm"]["count"]) == 3 * n_edges
    assert int(stats["node_norm"]["count"]) == 3 * n_nodes
    assert bool(jnp.all(stats["node_norm"]["std"] > 0))
