# source: https://github.com/jpssrocha/deeponet-jax-inversion/blob/110fcc916f8f94cca80114261fff3e8065df800d/modules/training_deeponet.py
# observed on jax 0.10.2 CPU: DeepOnet.__init__ splits the key into b_key and t_key but
#   builds both the branch MLP and the trunk MLP from b_key (t_key is never used), so the
#   two nets draw the same random stream: every hidden layer of the trunk (256x256, and the
#   128x256 output layer) starts with exactly the weights of the branch's same layer; only
#   the first layers differ, because their input sizes (24 and 2) differ. The jitted
#   training step itself runs fine. JAX's key-reuse checker names the MLP call's first line
#   (line 71) for the same reuse.
# gap: other
# added: the h5py loading of the training and test fields is replaced by small random arrays
#   of the same layout (positions X, KL coefficients theta, pressure fields P); the device
#   selection, the checkpointing (eqx.tree_serialise_leaves, json dumps) and the resume
#   branch (continue_training) are cut; TOTAL_EPOCHS is 3 and the 10_000-step best-model
#   threshold is kept but never reached; the interactive `input()` __main__ block is replaced
#   by one that trains and checks the initial weights.
# Stdlib
from typing import Callable
from copy import deepcopy
from dataclasses import dataclass, field


# 3th party
import jax
import jax.numpy as jnp
import equinox as eqx
import optax


RANDOM_SEED = 5828
LR = 0.001
TOTAL_EPOCHS = 3


@dataclass
class LossTrainingState:
    training_losses: list[float] = field(default_factory=list)
    test_losses: list[float] = field(default_factory=list)
    min_loss: float = 1_000_000_000.0


class DeepOnet(eqx.Module):
    """ Simplified deeponet using twin  MLP as architecture """

    branch_net: eqx.nn.MLP
    trunk_net: eqx.nn.MLP
    bias: jax.Array

    def __init__(
        self, 
        in_branch: int,
        in_trunk: int,
        width: int,
        depth: int,
        interact: int,
        activation: Callable,
        *,
        key
    ):

        b_key, t_key = jax.random.split(key)

        self.branch_net = eqx.nn.MLP(
            in_branch,
            interact,
            width,
            depth,
            activation,
            key=b_key
        )

        self.trunk_net = eqx.nn.MLP(  # tolerate: JIT502
            in_trunk,
            interact,
            width,
            depth,
            activation,
            final_activation=activation,
            key=b_key  # expect: JIT502
        )

        self.bias = jnp.zeros((1,))

    
    def __call__(self, x_branch, x_trunk):
        """
        Parameters:
        -----------
        x_branch.shape = (in_size_branch,)
        x_trunk.shape = (in_size_trunk,)

        Returns:
        --------

        return shape: "scalar"
        """

        branch_out = self.branch_net(x_branch)
        trunk_out = self.trunk_net(x_trunk)

        inner_product = jnp.sum(branch_out*trunk_out, keepdims=True)

        return (inner_product + self.bias)[0]  # Taking the zeroth index 


@eqx.filter_jit
def loss_fn(model, X, theta, P):
    """MSE function to be used as loss function"""

    outputs = jax.vmap(jax.vmap(model, in_axes=(None, 0)), in_axes=(0, None))(theta, X)
    mse = jnp.mean(jnp.square(outputs - P))

    return mse


@eqx.filter_jit
def update(
    opt_state: optax.OptState,
    model: eqx.Module,
    optimizer: optax.GradientTransformation,
    X: jax.Array,
    theta: jax.Array,
    P: jax.Array
) -> tuple[jax.Array, eqx.Module, optax.OptState]:
    """Update function for training loop. """

    loss, grad = eqx.filter_value_and_grad(loss_fn)(model, X, theta, P)
    updates, new_state = optimizer.update(grad, opt_state, model)  # pyright: ignore
    new_model = eqx.apply_updates(model, updates)

    return loss, new_model, new_state


def load_fields(seed, n_fields=4, n_points=16):
    # stand-in for the h5py files: positions, KL coefficients and pressure fields
    kx, kt, kp = jax.random.split(jax.random.key(seed), 3)
    X = jax.random.uniform(kx, (n_points, 2))
    theta = jax.random.normal(kt, (n_fields, 24))
    P = jax.random.normal(kp, (n_fields, n_points))
    return X, theta, P


def train_deeponet_pressure_field(continue_training: bool = True):
    """Main training function for deeponet"""

    print("Loading training data ...")
    X, theta, P = load_fields(1)
    print("Loading testing data ...")
    X_test, theta_test, P_test = load_fields(2)

    # Initializing neural network and auxiliary variables for training

    key = jax.random.key(RANDOM_SEED)

    deeponet = DeepOnet(
        24,
        2,
        256,
        5,
        128,
        activation=jax.nn.relu,
        key=key
    )

    best_model = deepcopy(deeponet)

    loss_history = LossTrainingState()

    optimizer = optax.adam(LR)
    opt_state = optimizer.init(eqx.filter(deeponet, eqx.is_array))

    min_loss = loss_history.min_loss if loss_history.training_losses else 1_000_000_000

    N = len(loss_history.training_losses) if loss_history.training_losses else 0

    epoch = -1
    loss = -1
    test_loss = -1

    for epoch in range(N, TOTAL_EPOCHS):

        loss, deeponet, opt_state = update(opt_state, deeponet, optimizer, X, theta, P)

        loss_history.training_losses.append(float(loss))

        if epoch % 100 == 0:
            test_loss = loss_fn(deeponet, X_test, theta_test, P_test)
            loss_history.test_losses.append(float(test_loss))
        
            print(f"{epoch = } | {loss = } | {test_loss = }")

        if loss <= min_loss and len(loss_history.training_losses) > 10_000:
            print(f"Best model  at step: {len(loss_history.training_losses)} | {loss = }")
            best_model = deepcopy(deeponet)
            loss_history.min_loss = float(loss)
            min_loss = loss

    print("Training finished. Saving final results.")
    print(f"{epoch = } | {loss = } | {test_loss = }")

    return 0
        

if __name__ == "__main__":
    assert train_deeponet_pressure_field(False) == 0

    net = DeepOnet(24, 2, 256, 5, 128, activation=jax.nn.relu, key=jax.random.key(RANDOM_SEED))
    branch, trunk = net.branch_net.layers, net.trunk_net.layers
    # the first layers differ only because their input sizes differ
    assert branch[0].weight.shape != trunk[0].weight.shape
    # observed: line 78 builds the trunk from b_key: every later layer of the trunk starts
    #   with exactly the branch's weights and biases
    for lb, lt in zip(branch[1:], trunk[1:]):
        assert lb.weight.shape == lt.weight.shape
        assert bool(jnp.array_equal(lb.weight, lt.weight))
        assert bool(jnp.array_equal(lb.bias, lt.bias))
    # with the key the code split for it, the trunk's layers differ from the branch's
    t_key = jax.random.split(jax.random.key(RANDOM_SEED))[1]
    fixed = eqx.nn.MLP(2, 128, 256, 5, jax.nn.relu, final_activation=jax.nn.relu, key=t_key)
    assert not bool(jnp.array_equal(fixed.layers[1].weight, branch[1].weight))
