# source: https://github.com/cjim8889/ebm-training/blob/db5e5ac8c50f0f58dbdd031a3466507aaabfe962/experiments/test_egnn.py
#   (with models/egnn.py and utils/models.py at the same commit: an E(n)-equivariant GNN in
#   equinox, a fully connected graph over the particles of a Lennard-Jones system, used as
#   the velocity field of an energy-based sampler; test_egnn.py is the author's smoke test)
# observed on jax 0.10.2 CPU: two keys are drawn from twice. EGNNLayer builds its position
#   MLP with `key` (eqx.nn.MLP splits it for its Linear layers) and then hands the same key
#   to init_linear_weights, which splits it again to redraw the weights: the layer's weights
#   and biases come from one key. The smoke test builds the EGNN from `key` (EGNN splits it
#   into the layer keys) and then draws the particle positions from that same key. JAX's
#   key-reuse checker (jax_debug_key_reuse, the file run again with PRNGKey replaced by
#   jax.random.key and the checker's raise recorded instead) names both: the split inside
#   init_linear_weights under the init_linear_weights call, and jax.random.normal(key, ...).
#   Kept: the three files as written, in the order utils/models.py, models/egnn.py,
#   test_egnn.py (its `from models.egnn import EGNN` and utils' import dropped, the imports
#   merged at the top). Added: the __main__ block that runs the file under the checker.
# gap: other
from typing import Callable, Optional, Tuple
import equinox as eqx
import jax
import jax.numpy as jnp


def xavier_init(
    weight: jnp.ndarray, key: jax.random.PRNGKey, scale: float = 1.0
) -> jnp.ndarray:
    """Xavier (Glorot) initialization."""
    out, in_ = weight.shape
    bound = jnp.sqrt(6 / (in_ + out))
    return scale * jax.random.uniform(
        key, shape=(out, in_), minval=-bound, maxval=bound
    )


def init_linear_weights(
    model: eqx.Module, init_fn: Callable, key: jax.random.PRNGKey, scale: float = 1.0
) -> eqx.Module:
    """Initialize weights of all Linear layers in a model using the given initialization function."""
    is_linear = lambda x: isinstance(x, eqx.nn.Linear)
    get_weights = lambda m: [
        x.weight
        for x in jax.tree_util.tree_leaves(m, is_leaf=is_linear)
        if is_linear(x)
    ]
    weights = get_weights(model)
    new_weights = [
        init_fn(weight, subkey, scale)
        for weight, subkey in zip(weights, jax.random.split(key, len(weights)))  # tolerate: JIT502
    ]
    return eqx.tree_at(get_weights, model, new_weights)


def get_fully_connected_senders_receivers(
    n_node: int,
) -> Tuple[jnp.ndarray, jnp.ndarray]:
    """Vectorized computation of fully connected graph edges."""
    idx = jnp.arange(n_node)
    senders, receivers = jnp.meshgrid(idx, idx, indexing="ij")
    mask = senders != receivers
    return senders[mask], receivers[mask]


class EGNNLayer(eqx.Module):
    pos_mlp: eqx.nn.MLP
    normalize: bool
    eps: float
    dt: float
    senders: jnp.ndarray
    receivers: jnp.ndarray
    seg_count_senders: jnp.ndarray
    n_node: int
    shortcut: bool  # New: Conditionally include step size 'd'

    def __init__(
        self,
        n_node: int,
        hidden_size: int,
        key: jax.random.PRNGKey,
        normalize: bool = False,
        tanh: bool = False,
        dt: float = 0.001,
        eps: float = 1e-8,
        shortcut: bool = False,  # New parameter
    ):
        self.dt = dt
        self.n_node = n_node
        self.normalize = normalize
        self.eps = eps
        self.shortcut = shortcut  # Store shortcut flag

        # Precompute graph structure
        self.senders, self.receivers = get_fully_connected_senders_receivers(n_node)

        # Precompute normalization constants
        self.seg_count_senders = (n_node - 1) * jnp.ones(n_node, dtype=jnp.float32)
        self.seg_count_senders = jnp.maximum(self.seg_count_senders, 1.0)

        # Dynamic MLP input size based on shortcut
        mlp_in_size = 3 if shortcut else 2  # radial + (t, d)
        self.pos_mlp = eqx.nn.MLP(
            in_size=mlp_in_size,
            out_size=1,
            width_size=hidden_size,
            depth=1,
            activation=jax.nn.silu,
            final_activation=jax.nn.tanh if tanh else lambda x: x,
            key=key,
        )
        self.pos_mlp = init_linear_weights(self.pos_mlp, xavier_init, key, scale=dt)  # expect: JIT502

    def _pos_update(
        self,
        radial: jnp.ndarray,
        coord_diff: jnp.ndarray,
        t: float,
        d: Optional[float] = None,
    ) -> jnp.ndarray:
        """Enhanced position update with optional step size."""
        # Conditionally build edge features
        if self.shortcut:
            edge_features = jnp.concatenate(
                [
                    radial,
                    jnp.full_like(radial, t),  # Time feature
                    jnp.full_like(radial, d),  # Step size feature
                ],
                axis=-1,
            )
        else:
            edge_features = jnp.concatenate([radial, jnp.full_like(radial, t)], axis=-1)

        # Process all edges in single batch
        edge_scalars = jax.vmap(self.pos_mlp)(edge_features).squeeze(-1)

        trans = coord_diff * edge_scalars[:, None]
        seg_sum = jax.ops.segment_sum(trans, self.senders, self.n_node)
        return seg_sum / self.seg_count_senders[:, None]

    def _coord2radial(self, coord: jnp.ndarray) -> Tuple[jnp.ndarray, jnp.ndarray]:
        """Efficient coordinate to radial conversion."""
        coord_diff = coord[self.senders] - coord[self.receivers]
        radial = jnp.sum(coord_diff**2, axis=1, keepdims=True)
        if self.normalize:
            norm = jnp.sqrt(radial + self.eps)
            coord_diff = coord_diff / norm
        return radial, coord_diff

    def __call__(self, *args):
        """Flexible call signature based on shortcut configuration."""
        if self.shortcut:
            pos, t, d = args
        else:
            pos, t = args

        radial, coord_diff = self._coord2radial(pos)
        pos_update = self._pos_update(
            radial, coord_diff, t, d if self.shortcut else None
        )
        return pos + pos_update


class EGNN(eqx.Module):
    layers: list
    n_node: int
    shortcut: bool  # Expose shortcut configuration

    def __init__(
        self,
        n_node: int,
        hidden_size: int,
        key: jax.random.PRNGKey,
        num_layers: int = 4,
        normalize: bool = False,
        tanh: bool = False,
        shortcut: bool = False,  # New configuration
    ):
        self.n_node = n_node
        self.shortcut = shortcut
        keys = jax.random.split(key, num_layers)

        self.layers = [
            EGNNLayer(
                n_node=n_node,
                hidden_size=hidden_size,
                key=k,
                normalize=normalize,
                tanh=tanh,
                shortcut=shortcut,  # Propagate configuration
            )
            for k in keys
        ]

    def __call__(self, *args):
        """Dynamic forward pass supporting optional step size."""
        if self.shortcut:
            pos, t, d = args
        else:
            pos, t = args

        pos = pos.reshape(self.n_node, -1)
        for layer in self.layers:
            if self.shortcut:
                pos = layer(pos, t, d)
            else:
                pos = layer(pos, t)
        return pos.reshape(-1)


# experiments/test_egnn.py
key = jax.random.PRNGKey(0)

egnn = EGNN(
    n_node=13,
    hidden_size=32,
    key=key,
    num_layers=2,
)

nodes = jnp.zeros((1,))
pos = jax.random.normal(key, (13, 3))  # expect: JIT502

pos = egnn(pos, nodes)

print(pos.shape)


if __name__ == "__main__":
    import runpy
    import traceback
    from jax.experimental.key_reuse import _core

    # JAX's key-reuse checker, recording every reuse it finds instead of stopping at the
    # first: the lines of this file on the stack of each check that failed.
    named = []
    _check = _core.KeyReuseSignature.check_signature

    def _recording_check(self, *args, **kwargs):
        try:
            _check(self, *args, **kwargs)
        except _core.KeyReuseError:
            stack = [f.lineno for f in traceback.extract_stack()[:-1] if f.filename == __file__]
            named.append(stack)

    _core.KeyReuseSignature.check_signature = _recording_check
    jax.random.PRNGKey = jax.random.key  # the checker follows typed keys only
    with jax.debug_key_reuse(True):
        runpy.run_path(__file__, run_name="key_reuse_check")
    innermost = [stack[-1] for stack in named]
    print("reuses named at lines", named)
    # observed: line 108 (init_linear_weights is handed the key eqx.nn.MLP was built from;
    #   the checker names the split inside it, line 47, with line 108 on its stack)
    assert innermost[0] == 47 and 108 in named[0], named
    # observed: line 219 (the positions are drawn from the key EGNN split into its layers)
    assert any(stack[-1] == 219 for stack in named), named
