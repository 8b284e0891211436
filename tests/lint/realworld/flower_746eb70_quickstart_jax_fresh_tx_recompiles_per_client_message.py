# source: https://github.com/adap/flower/blob/746eb708dd64919d91f334fd24eeca74fe9d12c7/examples/quickstart-jax/jaxexample/task.py
#   (Flower's "quickstart-jax" federated-learning app: the task module, with the ClientApp of
#   https://github.com/adap/flower/blob/0be22e6edf8c1325df2ffb45a035951c1470a954/examples/quickstart-jax/jaxexample/client_app.py,
#   whose train handler runs for every client message of every round)
# observed on jax 0.10.2 CPU: every train message calls create_train_state(lr), which builds
#   a new optax.sgd(learning_rate, momentum=0.9); the TrainState keeps tx (and apply_fn) as
#   static fields, and a new optax transformation's functions compare by identity, so the
#   module-level jitted apply_model and update_model miss their caches and compile again for
#   every client message: four messages (two clients, two rounds) of the same shapes compile
#   each of them four times instead of once.
# gap: per-call-recompile
# added: the __main__ block, which does what client_app.py's train handler does for each
#   message (create_train_state(lr), set_params with the global arrays, train, get_params)
#   for two clients over two rounds, with a FedAvg of the returned arrays in place of the
#   Flower server. Changed: load_data's flwr_datasets FederatedDataset/IidPartitioner MNIST
#   partition is replaced by a stand-in that yields random MNIST-shaped batches of the same
#   dict layout (flwr_datasets and datasets are not installed, so their imports, the fds
#   cache and disable_progress_bar() are left out).
"""jaxexample: A Flower / JAX app."""

import warnings
from typing import Any, List, Sequence, Tuple

import jax
import jax.numpy as jnp
import numpy as np
import numpy.typing as npt
import optax
from flax import linen as nn
from flax.training.train_state import TrainState
from jax import Array

rng = jax.random.PRNGKey(0)
rng, init_rng = jax.random.split(rng)

warnings.filterwarnings("ignore", category=UserWarning)
warnings.filterwarnings("ignore", category=RuntimeWarning)


class CNN(nn.Module):
    """A simple CNN model."""

    @nn.compact
    def __call__(self, x):
        x = nn.Conv(features=6, kernel_size=(5, 5))(x)
        x = nn.relu(x)
        x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
        x = nn.Conv(features=16, kernel_size=(5, 5))(x)
        x = nn.relu(x)
        x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
        x = x.reshape((x.shape[0], -1))  # flatten
        x = nn.Dense(features=120)(x)
        x = nn.relu(x)
        x = nn.Dense(features=84)(x)
        x = nn.relu(x)
        x = nn.Dense(features=10)(x)
        return x


def create_model(rng: Array) -> Tuple[CNN, Any]:
    cnn = CNN()
    return cnn, cnn.init(rng, jnp.ones([1, 28, 28, 1]))["params"]


def create_train_state(learning_rate: float) -> TrainState:
    """Creates initial `TrainState`."""

    tx = optax.sgd(learning_rate, momentum=0.9)
    model, model_params = create_model(rng)
    return TrainState.create(apply_fn=model.apply, params=model_params, tx=tx)


def get_params(params: Any) -> List[npt.NDArray[Any]]:
    """Get model parameters as list of numpy arrays."""
    return [np.array(param) for param in jax.tree_util.tree_leaves(params)]


def set_params(
    train_state: TrainState, global_params: Sequence[npt.NDArray[Any]]
) -> TrainState:
    """Create a new trainstate with the global_params."""
    new_params_dict = jax.tree_util.tree_unflatten(
        jax.tree_util.tree_structure(train_state.params), list(global_params)
    )
    return train_state.replace(params=new_params_dict)


@jax.jit
def apply_model(
    state: TrainState, images: Array, labels: Array
) -> Tuple[Any, Array, Array]:
    """Computes gradients, loss and accuracy for a single batch."""

    def loss_fn(params):
        logits = state.apply_fn({"params": params}, images)
        one_hot = jax.nn.one_hot(labels, 10)
        loss = jnp.mean(optax.softmax_cross_entropy(logits=logits, labels=one_hot))
        return loss, logits

    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
    (loss, logits), grads = grad_fn(state.params)
    accuracy = jnp.mean(jnp.argmax(logits, -1) == labels)
    return grads, loss, accuracy


@jax.jit
def update_model(state: TrainState, grads: Any) -> TrainState:
    return state.apply_gradients(grads=grads)


def train(state: TrainState, train_ds) -> Tuple[TrainState, float, float]:
    """Train for a single epoch."""

    epoch_loss = []
    epoch_accuracy = []

    for batch in train_ds:
        batch_images = batch["image"]
        batch_labels = batch["label"]
        grads, loss, accuracy = apply_model(state, batch_images, batch_labels)  # expect: JIT301
        state = update_model(state, grads)  # expect: JIT301
        epoch_loss.append(loss)
        epoch_accuracy.append(accuracy)
    train_loss = np.mean(epoch_loss)
    train_accuracy = np.mean(epoch_accuracy)
    return state, float(train_loss), float(train_accuracy)


def load_data(partition_id, num_partitions, batch_size):
    """Stand-in for the MNIST partition: three batches of random images for training and
    one for testing, in the layout of the FederatedDataset batches."""
    data_rng = np.random.default_rng(partition_id)

    def batches(n):
        return [
            {
                "image": jnp.asarray(data_rng.random((batch_size, 28, 28, 1), dtype=np.float32)),
                "label": jnp.asarray(data_rng.integers(0, 10, batch_size), dtype=jnp.int16),
            }
            for _ in range(n)
        ]

    return batches(3), batches(1)


if __name__ == "__main__":
    compiled = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, fun_name=None, **kw: compiled.append(fun_name)
        if name == "/jax/core/compile/backend_compile_duration" else None
    )

    lr, batch_size, num_partitions = 0.1, 32, 2
    global_arrays = get_params(create_train_state(lr).params)
    messages = 0
    for server_round in range(2):
        replies = []
        for partition_id in range(num_partitions):
            # client_app.py's train(msg, context)
            train_state = create_train_state(lr)
            train_state = set_params(train_state, global_arrays)
            trainloader, _ = load_data(partition_id, num_partitions, batch_size)
            train_state, loss, acc = train(train_state, trainloader)
            replies.append(get_params(train_state.params))
            messages += 1
        global_arrays = [np.mean(arrays, axis=0) for arrays in zip(*replies)]

    # observed: line 120 compiles apply_model again for every client message (four times)
    # observed: line 121 compiles update_model again for every client message (four times)
    assert compiled.count("jit(apply_model)") == messages == 4, compiled
    assert compiled.count("jit(update_model)") == messages, compiled
    assert np.isfinite(loss)
