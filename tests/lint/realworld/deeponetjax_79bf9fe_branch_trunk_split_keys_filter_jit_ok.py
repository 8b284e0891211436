# source: https://github.com/kamran-arora/DeepONet-JAX/blob/79bf9feef1b964869754cd265b7f7bb4ba646ac0/src/deeponet.py
# observed on jax 0.10.2 CPU: the equinox DeepONet splits its key into branch_key and
#   trunk_key and FNN splits its own key once per layer, so no key is drawn from twice (JAX's
#   key-reuse checker stays silent) and the branch and trunk hidden layers of equal shape
#   start with different weights; trained with eqx.filter_jit (the FNN's layer sizes and
#   activation are static fields), the step compiles once and the loss falls, and the
#   jitted forward equals the eager one.
# gap: other
# added: FNN from src/nn/fnn.py of the same commit (the module deeponet.py imports as
#   `from nn.fnn import FNN`), pasted above DeepONet; the __main__ block (an antiderivative
#   data set, an optax training loop under eqx.filter_jit, compile counts, the checks).
import jax
import jax.random as jr
import jax.numpy as jnp
import equinox as eqx
from typing import Tuple, List, Callable, Union


class FNN(eqx.Module):
    layers: Tuple
    layer_sizes: List
    activation: Union[List[Callable], Callable]

    """
    Fully-connected Neural Network in Equinox
    """

    def __init__(self, layer_sizes, activation, key, dtype):
        self.layer_sizes = layer_sizes
        # activations
        if isinstance(activation, list):
            if not len(layer_sizes) - 1 == len(activation):
                raise ValueError(
                    f"Total number of activation functions does not match number of layers. Got {len(activation)}, expected {len(layer_sizes)-1}"
                )
            self.activation = activation
        else:
            self.activation = activation
        # keys for layers
        keys = jr.split(key, len(layer_sizes))
        # list of layers
        layers = []
        for i in range(1, len(layer_sizes)):
            layers.append(
                eqx.nn.Linear(
                    in_features=layer_sizes[i - 1],
                    out_features=layer_sizes[i],
                    dtype=dtype,
                    key=keys[i - 1],
                )
            )
        self.layers = tuple(layers)

    def __call__(self, x):
        for i, layer in enumerate(self.layers[:-1]):
            x = layer(x)
            if isinstance(self.activation, list):
                layer_activation = self.activation[i]
            else:
                layer_activation = self.activation
            x = layer_activation(x)
        x = self.layers[-1](x)
        return x


class DeepONet(eqx.Module):
    branch_net: FNN
    trunk_net: FNN
    bias: jax.Array

    def __init__(self, layer_sizes_branch, layers_sizes_trunk, activation, key, dtype):
        # branch and trunk keys
        branch_key, trunk_key = jr.split(key, 2)
        # activations
        if isinstance(activation, dict):
            branch_activation = activation["branch"]
            trunk_activation = activation["trunk"]
        else:
            branch_activation = trunk_activation = activation
        # create branch and trunk nets
        self.branch_net = FNN(layer_sizes_branch, branch_activation, branch_key, dtype)
        self.trunk_net = FNN(layers_sizes_trunk, trunk_activation, trunk_key, dtype)
        self.bias = jnp.zeros((1,))

    def __call__(self, x_branch, x_trunk):
        """
        x_branch.shape = (s, d_s)
        x_trunk.shape = (q, d_q)
        """
        x_branch = self.branch_net(x_branch)
        x_trunk = self.trunk_net(x_trunk)
        ip = jnp.sum(x_branch * x_trunk, keepdims=True)
        return (ip + self.bias)[0]


if __name__ == "__main__":
    import optax

    jax.config.update("jax_debug_key_reuse", True)
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None
    )

    m = 20
    model = DeepONet([m, 32, 32], [1, 32, 32], jax.nn.tanh, jr.key(0), jnp.float32)
    # hidden layers of equal shape in branch and trunk start from different keys
    assert not bool(jnp.array_equal(model.branch_net.layers[1].weight, model.trunk_net.layers[1].weight))

    # antiderivative data: u(x) = a cos(b x), s(y) = a sin(b y) / b
    k_a, k_b = jr.split(jr.key(1))
    a = jr.uniform(k_a, (16, 1), minval=0.5, maxval=1.5)
    b = jr.uniform(k_b, (16, 1), minval=1.0, maxval=3.0)
    xs = jnp.linspace(0.0, 1.0, m)
    ys = jnp.linspace(0.0, 1.0, 10)[:, None]
    u = a * jnp.cos(b * xs)
    s = a * jnp.sin(b * ys[:, 0]) / b

    def loss_fn(model, u, ys, s):
        pred = jax.vmap(jax.vmap(model, in_axes=(None, 0)), in_axes=(0, None))(u, ys)
        return jnp.mean((pred - s) ** 2)

    opt = optax.adam(1e-2)
    opt_state = opt.init(eqx.filter(model, eqx.is_array))

    @eqx.filter_jit
    def step(model, opt_state, u, ys, s):
        loss, grads = eqx.filter_value_and_grad(loss_fn)(model, u, ys, s)
        updates, opt_state = opt.update(grads, opt_state, model)
        return eqx.apply_updates(model, updates), opt_state, loss

    model, opt_state, loss0 = step(model, opt_state, u, ys, s)
    n_after_first = len(compiles)
    for _ in range(30):
        model, opt_state, loss = step(model, opt_state, u, ys, s)
    assert len(compiles) == n_after_first
    assert float(loss) < float(loss0)

    jitted = eqx.filter_jit(model)(u[0], ys[3])
    assert bool(jnp.allclose(jitted, model(u[0], ys[3]), atol=1e-5))
