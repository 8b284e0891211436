# source: https://github.com/f-lair/hessian-data-lowrank/blob/cedfb8f0341df8be42179a0f366b58b14c734c69/src/train_utils.py (epoch loop in src/train.py of the same commit)
# observed on jax 0.10.2 CPU: train_epoch and test_epoch are called once per epoch by src/train.py and each wraps a fresh functools.partial in jax.jit, so train_step and test_step are retraced and recompiled on every epoch (counted with jax.monitoring backend compiles)
# gap: per-call-recompile
# observed: line 233 train_step_jit is a new jit of a new partial on every train_epoch call: 1 backend compile in every later epoch
# observed: line 296 test_step_jit is a new jit of a new partial on every test_epoch call: 1 backend compile in every later epoch
# added: checkpointing removed from train_epoch (orbax CheckpointManager argument, save_args and checkpoint_manager.save call; it would write to disk); DataLoader is a stand-in for src/data_loader.DataLoader (a torch DataLoader) over a random 7x7 MNIST-like dataset; the __main__ block holds MNIST_MLP from src/model.py and replaces src/train.py's epoch loop with 3 small epochs
from functools import partial
from typing import Any, Tuple

import jax
import jax.flatten_util
import optax
from flax.core.frozen_dict import FrozenDict
from flax.training.train_state import TrainState
from jax import numpy as jnp
from jax import tree_util
from tqdm import tqdm



import numpy as np


class DataLoader:
    """Stand-in for src/data_loader.DataLoader (a torch DataLoader with a numpy collate_fn;
    torch is not installed): yields (x, y) numpy batches of a downsampled-MNIST-like dataset."""

    class _Dataset:
        classes = list(range(10))

        def __init__(self, n, px, seed):
            rng = np.random.default_rng(seed)
            self.x = rng.normal(size=(n, px * px)).astype(np.float32)
            self.y = rng.integers(0, 10, size=n)

        def __len__(self):
            return len(self.y)

    def __init__(self, n=64, batch_size=16, px=7, seed=0):
        self.dataset = self._Dataset(n, px, seed)
        self.batch_size = batch_size

    def __len__(self):
        return len(self.dataset) // self.batch_size

    def __iter__(self):
        for b in range(len(self)):
            sl = slice(b * self.batch_size, (b + 1) * self.batch_size)
            yield self.dataset.x[sl], self.dataset.y[sl]


def train_step(
    state: TrainState,
    batch: Tuple[jax.Array, jax.Array],
    n_classes: int,
) -> Tuple[TrainState, jax.Array, jax.Array, jax.Array]:
    """
    Performs a single training step.
    C: Model output dim.
    D: Parameter dim.
    N: Batch dim.

    Args:
        state (TrainState): Current training state.
        batch (Tuple[jax.Array, jax.Array]): Batched input data.
        n_classes (int): Number of classes (equal to C).

    Returns:
        Tuple[TrainState, jax.Array, jax.Array, jax.Array]:
            Updated training state,
            per-item loss ([N]),
            number of correct predictions per class ([C]),
            number of ground-truth items per class ([C]).
    """

    def model_loss_fn(
        params: FrozenDict[str, Any], x: jax.Array, y: jax.Array
    ) -> Tuple[jax.Array, Tuple[jax.Array, jax.Array]]:
        """
        Performs model forward pass and evaluates mean loss as a function of model parameters.

        Args:
            params (FrozenDict[str, Any]): Model parameters ([D], pytree in D).
            x (jax.Array): Model input ([N, ...]).
            y (jax.Array): Ground truth, integer-encoded ([N]).

        Returns:
            Tuple[jax.Array, Tuple[jax.Array, jax.Array]]:
                Mean loss ([1]),
                per-item loss ([N]),
                model output ([N, C]).
        """

        logits = state.apply_fn(params, x)  # [N, C]
        loss_unreduced = optax.softmax_cross_entropy_with_integer_labels(logits, y)  # [N]
        loss = jnp.mean(loss_unreduced)  # [1]
        return loss, (loss_unreduced, logits)  # type: ignore

    # Retrieve data
    x, y = batch

    # Forward pass + gradient
    (_, (loss, logits)), d_loss = jax.value_and_grad(model_loss_fn, has_aux=True)(
        state.params, x, y
    )  # [N]; [N, C]; [D], pytree in D

    # Compute number of correct predictions per class
    correct = (jnp.argmax(logits, -1) == y).astype(int)  # [N]
    # Add dummy false predictions to account for every class
    y_dummy = jnp.concatenate((y, jnp.arange(n_classes, dtype=int)))  # [N+C]
    correct_dummy = jnp.concatenate((correct, jnp.zeros((n_classes,), dtype=int)))  # [N+C]
    n_correct_per_class = jnp.bincount(y_dummy, correct_dummy, length=n_classes)  # [C]
    n_per_class = jnp.bincount(
        y_dummy,
        jnp.concatenate((jnp.ones_like(y), jnp.zeros((n_classes,), dtype=int))),
        length=n_classes,
    )  # [C]

    # Perform gradient step, update training state
    state = state.apply_gradients(grads=d_loss)

    return state, loss, n_correct_per_class, n_per_class


def test_step(
    state: TrainState,
    batch: Tuple[
        jax.Array,
        jax.Array,
    ],
    n_classes: int,
    return_grad: bool = False,
) -> Tuple[jax.Array, jax.Array, jax.Array] | Tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """
    Performs a single test step without GGN computation.
    C: Model output dim.
    D: Parameter dim.
    N: Batch dim.

    Args:
        state (TrainState): Current training state.
        batch (Tuple[jax.Array, jax.Array]): Batched input data.
        n_classes (int): Number of classes (equal to C).
        return_grad (bool, optional): Whether to return loss gradients. Defaults to False.

    Returns:
        Tuple[jax.Array, jax.Array, jax.Array]:
            Per-item loss ([N]),
            per-item gradient ([N, D], optional),
            number of correct predictions per class ([C]),
            number of ground-truth items per class ([C]).
    """

    def model_loss_fn(
        params: FrozenDict[str, Any], x: jax.Array, y: jax.Array
    ) -> Tuple[jax.Array, Tuple[jax.Array]]:
        """
        Performs model forward pass and evaluates mean loss as a function of model parameters.

        Args:
            params (FrozenDict[str, Any]): Model parameters ([D], pytree in D).
            x (jax.Array): Model input ([N, ...]).
            y (jax.Array): Ground truth, integer-encoded ([N]).

        Returns:
            Tuple[jax.Array, Tuple[jax.Array]]:
                Per-item loss ([N]),
                model output ([N, C]).
        """

        logits = state.apply_fn(params, x)  # [N, C]
        loss_unreduced = optax.softmax_cross_entropy_with_integer_labels(logits, y)  # [N]
        return loss_unreduced, (logits,)  # type: ignore

    # Retrieve data
    x, y = batch

    # Forward pass
    loss, (logits,) = model_loss_fn(state.params, x, y)  # [N]; [N, C]

    # Compute number of correct predictions per class
    correct = (jnp.argmax(logits, -1) == y).astype(int)  # [N]
    # Add dummy false predictions to account for every class
    y_dummy = jnp.concatenate((y, jnp.arange(n_classes, dtype=int)))  # [N+C]
    correct_dummy = jnp.concatenate((correct, jnp.zeros((n_classes,), dtype=int)))  # [N+C]
    n_correct_per_class = jnp.bincount(y_dummy, correct_dummy, length=n_classes)  # [C]
    n_per_class = jnp.bincount(
        y_dummy,
        jnp.concatenate((jnp.ones_like(y), jnp.zeros((n_classes,), dtype=int))),
        length=n_classes,
    )  # [C]

    if return_grad:
        d_loss, _ = jax.jacrev(model_loss_fn, has_aux=True)(
            state.params, x, y
        )  # [N, D], pytree in D
        N, _ = logits.shape

        # Transform 'd_loss' from pytree representation into vector representation
        d_loss = jnp.concatenate(
            [x.reshape(N, -1) for x in tree_util.tree_leaves(d_loss)], axis=1
        )  # [N, D]
        return loss, d_loss, n_correct_per_class, n_per_class
    else:
        return loss, n_correct_per_class, n_per_class


def train_epoch(
    state: TrainState,
    train_dataloader: DataLoader,
    n_steps: int,
    no_progress_bar: bool,
) -> Tuple[TrainState, float, float, jax.Array, int]:
    """
    Performs a single training epoch.

    Args:
        state (TrainState): Current training state.
        train_dataloader (DataLoader): Data loader for model training.
        n_steps (int): Current number of completed training step across epochs.
        no_progress_bar (bool): Disables progress bar.

    Returns:
        Tuple[TrainState, float, float, jax.Array, int, int]:
            Updated training state,
            epoch loss,
            epoch accuracy,
            epoch accuracy per class,
            current number of completed training steps across epochs.
    """

    n_classes = len(train_dataloader.dataset.classes)  # type: ignore
    train_step_jit = jax.jit(partial(train_step, n_classes=n_classes))  # expect: JIT301

    # Running statistics
    loss_epoch = []  # Per-item losses per training steps
    n_correct_epoch = 0  # Number of correct predictions across the epoch
    n_correct_per_class_epoch = jnp.zeros((n_classes,), dtype=int)
    n_per_class_epoch = jnp.zeros_like(n_correct_per_class_epoch)

    # Start epoch
    pbar_stats = {"loss": 0.0, "acc": 0.0}
    with tqdm(
        total=len(train_dataloader), desc="Train", disable=no_progress_bar, postfix=pbar_stats
    ) as pbar:
        # Iterate over dataset for training
        for batch in train_dataloader:
            # Perform training step
            state, loss, n_correct_per_class, n_per_class = train_step_jit(
                state,
                batch,
            )
            # Update running statistics
            loss_epoch.append(loss)
            n_correct_per_class_epoch = n_correct_per_class_epoch + n_correct_per_class
            n_per_class_epoch = n_per_class_epoch + n_per_class
            n_correct = n_correct_per_class.sum()
            n_correct_epoch += n_correct
            N = batch[0].shape[0]
            n_steps += 1
            # Update progress bar
            pbar.update()
            pbar_stats["loss"] = round(float(jnp.mean(loss)), 6)
            pbar_stats["acc"] = round(n_correct / N, 4)
            pbar.set_postfix(pbar_stats)

    # Compute final epoch statistics: Epoch loss, epoch accuracy (per class)
    loss = jnp.mean(jnp.concatenate(loss_epoch)).item()  # [1]
    accuracy = float(n_correct_epoch / len(train_dataloader.dataset))  # type: ignore
    accuracy_per_class = n_correct_per_class_epoch / n_per_class_epoch  # type: ignore

    return state, loss, accuracy, accuracy_per_class, n_steps


def test_epoch(
    state: TrainState,
    test_dataloader: DataLoader,
    no_progress_bar: bool,
) -> Tuple[float, float, jax.Array]:
    """
    Performs a single training epoch.

    Args:
        state (TrainState): Current training state.
        test_dataloader (DataLoader): Data loader for model training.
        no_progress_bar (bool): Disables progress bar.

    Returns:
        Tuple[float, float, jax.Array]:
            Epoch loss,
            epoch accuracy,
            epoch accuracy per class.
    """

    n_classes = len(test_dataloader.dataset.classes)  # type: ignore
    test_step_jit = jax.jit(partial(test_step, n_classes=n_classes))  # expect: JIT301

    # Running statistics
    loss_epoch = []  # Per-item losses per test steps
    n_correct_epoch = 0  # Number of correct predictions across the epoch
    n_correct_per_class_epoch = jnp.zeros((n_classes,), dtype=int)
    n_per_class_epoch = jnp.zeros_like(n_correct_per_class_epoch)

    # Start epoch
    pbar_stats = {"loss": 0.0, "acc": 0.0}
    with tqdm(
        total=len(test_dataloader),
        desc="Test-step",
        disable=no_progress_bar,
        postfix=pbar_stats,
    ) as pbar:
        # Iterate over dataset for testing
        for batch in test_dataloader:
            # Perform test step
            loss, n_correct_per_class, n_per_class = test_step_jit(state, batch)
            # Update running statistics
            loss_epoch.append(loss)
            n_correct_per_class_epoch = n_correct_per_class_epoch + n_correct_per_class
            n_per_class_epoch = n_per_class_epoch + n_per_class
            n_correct = n_correct_per_class.sum()
            n_correct_epoch += n_correct
            N = batch[0].shape[0]
            # Update progress bar
            pbar.update()
            pbar_stats["loss"] = round(float(jnp.mean(loss)), 6)
            pbar_stats["acc"] = round(n_correct / N, 4)
            pbar.set_postfix(pbar_stats)

    # Compute final epoch statistics: Epoch loss, epoch accuracy (per class)
    loss = jnp.mean(jnp.concatenate(loss_epoch)).item()  # [1]
    accuracy = float(n_correct_epoch / len(test_dataloader.dataset))  # type: ignore
    accuracy_per_class = n_correct_per_class_epoch / n_per_class_epoch  # type: ignore

    return loss, accuracy, accuracy_per_class


if __name__ == "__main__":
    from flax import linen as nn

    class MNIST_MLP(nn.Module):
        """MLP model for MNIST classification (src/model.py)."""

        hidden_dim: int

        def setup(self) -> None:
            self.lin1 = nn.Dense(self.hidden_dim)
            self.lin2 = nn.Dense(10)

        def __call__(self, x: jax.Array) -> jax.Array:
            x = self.lin1(x)
            x = nn.relu(x)
            x = self.lin2(x)
            return x

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, dur, **kw: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None)

    train_dataloader = DataLoader(n=64, batch_size=16, seed=0)
    test_dataloader = DataLoader(n=32, batch_size=16, seed=1)
    model = MNIST_MLP(32)
    params = model.init(jax.random.key(7), train_dataloader.dataset.x[0])
    train_state = TrainState.create(apply_fn=model.apply, params=params, tx=optax.sgd(1e-3))

    # the epoch loop of src/train.py (without checkpointing and logging)
    n_steps = 0
    train_compiles, test_compiles = [], []
    for epoch_idx in range(3):
        n = len(compiles)
        train_state, loss, accuracy, accuracy_per_class, n_steps = train_epoch(
            train_state, train_dataloader, n_steps, True)
        train_compiles.append(len(compiles) - n)
        n = len(compiles)
        test_loss, test_accuracy, test_accuracy_per_class = test_epoch(
            train_state, test_dataloader, True)
        test_compiles.append(len(compiles) - n)

    print("backend compiles per epoch: train_epoch", train_compiles, "test_epoch", test_compiles)
    # a jit of a module-level function would compile once; the fresh partial recompiles every epoch
    assert all(c >= 1 for c in train_compiles[1:]), train_compiles
    assert all(c >= 1 for c in test_compiles[1:]), test_compiles
    print("OK: train_step and test_step recompiled on every epoch")
