# source: https://github.com/google/evojax/blob/129dbecd5cedec2ab7ce284f8ad13b324eae3f06/evojax/mnist_cnn.py
#   (get_batch_masks, train_step, eval_step and epoch_step before commit 7cb76af "dont pass
#   bool to jit steps", which computes task_labels outside the jitted steps and passes the
#   array instead of the flag; CNN, Mask, create_train_state and cnn_final_layer_name from
#   evojax/models.py, cross_entropy_loss and compute_metrics from evojax/util.py and
#   DatasetUtilClass.__init__ from evojax/datasets.py at the same commit)
# observed on jax 0.10.2 CPU: epoch_step passes use_task_labels=False positionally to the
#   jitted train_step, which traces it like any other argument, so `... if use_task_labels
#   else None` raises TracerBoolConversionError on the first batch. eval_step has the same
#   line (the test split, not run here), and `elif l1_pruning_proportion:`, `if
#   l1_reg_lambda:` and CNN's `if self.dropout_rate:` test floats that the same jitted
#   steps trace when a sweep passes them (behind the raising line); with several datasets
#   the loop of epoch_step permutes each with the same rng (a second dataset is not
#   reached here). Reduced: wandb logging, the commented-out lines of Mask.__call__, the
#   commented-out train_epoch, calc_and_log_metrics and run_mnist_training are dropped;
#   DatasetUtilClass keeps the constructor path that takes ready dataset dicts; the MNIST
#   files are replaced by random images and labels of the same shapes (added: the
#   __main__ block, which calls epoch_step as run_mnist_training does).
# gap: other
import numpy as np
from typing import Tuple

import optax
import jax
from jax import random
import jax.numpy as jnp
from flax import linen as nn
from flax.training import train_state
from flax.core import FrozenDict

# evojax/models.py
mask_final_layer_name = 'DENSE'
cnn_final_layer_name = 'DENSE'
current_dataset_number = 4


class CNN(nn.Module):
    """CNN for MNIST."""
    dataset_number: int = current_dataset_number
    dropout_rate: float = None

    @nn.compact
    def __call__(self, x,
                 mask: jnp.ndarray = None,
                 task_labels: jnp.ndarray = None):

        x = nn.relu(nn.Conv(features=32, kernel_size=(3, 3), padding="SAME", name="CONV1")(x))
        x = nn.relu(nn.Conv(features=16, kernel_size=(3, 3), padding="SAME", name="CONV2")(x))
        x = x.reshape((x.shape[0], -1))

        if task_labels is not None:
            label_input = nn.one_hot(task_labels, self.dataset_number)
            x = jnp.concatenate([x, label_input], axis=1)

        if self.dropout_rate:  # tolerate: JIT101
            x = nn.Dropout(rate=self.dropout_rate, deterministic=False)(x)

        if mask is not None:
            x = x * mask

        x = nn.Dense(features=10, name=cnn_final_layer_name)(x)
        return x


def create_train_state(rng, learning_rate, task_labels: jnp.ndarray = None, dropout_rate: float = None):
    """Creates initial `TrainState`."""
    params = CNN(dropout_rate=dropout_rate).init(rng, jnp.ones([1, 28, 28, 1]), None, task_labels)['params']
    tx = optax.adam(learning_rate)
    return train_state.TrainState.create(
        apply_fn=CNN().apply, params=params, tx=tx)


class Mask(nn.Module):
    """Mask network for to provide a mask based on either dataset label or image input."""
    mask_size: int
    dataset_number: int = current_dataset_number
    pixel_input: bool = False

    @nn.compact
    def __call__(self, x):
        x = nn.one_hot(x, self.dataset_number)

        x = nn.Dense(features=self.mask_size, name=mask_final_layer_name)(x)
        x = nn.sigmoid(x)

        return x


# evojax/util.py
def cross_entropy_loss(*, logits, labels):
    labels_onehot = jax.nn.one_hot(labels, num_classes=10)
    return optax.softmax_cross_entropy(logits=logits, labels=labels_onehot).sum()


def compute_metrics(*, logits, labels):
    loss = cross_entropy_loss(logits=logits, labels=labels)
    accuracy = jnp.mean(jnp.argmax(logits, -1) == labels)
    metrics = {
        'loss': loss,
        'accuracy': accuracy,
    }
    return metrics


# evojax/datasets.py
class DatasetUtilClass:
    """
    Class to facilitate having separate test sets for the multiple datasets.
    """
    def __init__(self, split: str, dataset_names_to_use: list, dataset_dicts: list = None):
        self.split = split
        self.dataset_holder = {}
        self.metrics_holder = {}

        if dataset_dicts:
            self.dataset_holder = dict(zip(dataset_names_to_use, dataset_dicts))


# evojax/mnist_cnn.py
def get_batch_masks(state, task_labels, mask_params=None, l1_pruning_proportion=None):
    if mask_params is not None:
        linear_weights = state.params[cnn_final_layer_name]["kernel"]
        mask_size = linear_weights.shape[0]
        batch_masks = Mask(mask_size=mask_size).apply({'params': mask_params}, task_labels)
    elif l1_pruning_proportion:  # tolerate: JIT101
        batch_masks = None
    else:
        batch_masks = None

    return batch_masks


@jax.jit
def train_step(state,
               batch,
               mask_params=None,
               use_task_labels=None,
               l1_pruning_proportion: float = None,
               l1_reg_lambda: float = None,
               dropout_rate: float = None,
               ):

    class_labels = batch['label'][:, 0]
    task_labels = batch['label'][:, 1] if use_task_labels else None  # expect: JIT101

    batch_masks = get_batch_masks(state, task_labels, mask_params, l1_pruning_proportion)

    def loss_fn(params):
        output_logits = CNN(dropout_rate=dropout_rate).apply({'params': params},
                                                             batch['image'],
                                                             batch_masks,
                                                             task_labels)

        loss = cross_entropy_loss(logits=output_logits, labels=class_labels)

        if l1_reg_lambda:  # tolerate: JIT101
            loss += l1_reg_lambda * jnp.sum(jnp.abs(params[cnn_final_layer_name]["kernel"]))

        return loss, output_logits

    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
    (_, logits), grads = grad_fn(state.params)
    state = state.apply_gradients(grads=grads)
    metrics = compute_metrics(logits=logits, labels=class_labels)
    return state, metrics


@jax.jit
def eval_step(state: train_state.TrainState,
              batch: dict,
              mask_params=None,
              use_task_labels=None,
              l1_pruning_proportion: float = None,
              l1_reg_lambda: float = None,
              dropout_rate: float = None,
              ) -> Tuple[train_state.TrainState, dict]:

    params = state.params
    class_labels = batch['label'][:, 0]
    task_labels = batch['label'][:, 1] if use_task_labels else None  # tolerate: JIT101

    batch_masks = get_batch_masks(state, task_labels, mask_params, l1_pruning_proportion)

    logits = CNN().apply({'params': params},
                         batch['image'],
                         batch_masks,
                         task_labels)

    return state, compute_metrics(logits=logits, labels=class_labels)


def epoch_step(test: bool,
               state: train_state.TrainState,
               dataset_class: DatasetUtilClass,
               batch_size: int,
               rng,
               mask_params: FrozenDict = None,
               use_task_labels: bool = False,
               l1_pruning_proportion: float = None,
               l1_reg_lambda: float = None,
               dropout_rate: float = None,
               ) -> Tuple[train_state.TrainState, DatasetUtilClass]:

    for dataset_name, dataset in dataset_class.dataset_holder.items():
        ds_size = dataset['image'].shape[0]
        steps_per_epoch = ds_size // batch_size

        if test:
            step_func = eval_step
        else:
            step_func = train_step

        perms = jax.random.permutation(rng, ds_size)  # tolerate: JIT502
        perms = perms[:steps_per_epoch * batch_size]  # skip incomplete batch
        perms = perms.reshape((steps_per_epoch, batch_size))

        batch_metrics = []
        for perm in perms:
            batch = {k: v[perm, ...] for k, v in dataset.items()}
            state, metrics = step_func(state,
                                       batch,
                                       mask_params,
                                       use_task_labels,
                                       l1_pruning_proportion,
                                       l1_reg_lambda,
                                       dropout_rate)

            batch_metrics.append(metrics)

        batch_metrics_np = jax.device_get(batch_metrics)
        epoch_metrics_np = {
            k: np.mean([metrics[k] for metrics in batch_metrics_np])
            for k in batch_metrics_np[0]}

        # Save the metrics for that datas
        dataset_class.metrics_holder[dataset_name] = {'loss': epoch_metrics_np['loss'],
                                                      'accuracy': epoch_metrics_np['accuracy']}

    return state, dataset_class


if __name__ == "__main__":
    data_rng = np.random.default_rng(0)
    train_dataset = {
        'image': data_rng.random((64, 28, 28, 1)).astype(np.float32),
        'label': np.stack([data_rng.integers(0, 10, 64), np.zeros(64, dtype=np.int64)], axis=1),
    }
    train_dataset_class = DatasetUtilClass('train', ['mnist'], [train_dataset])

    rng = random.PRNGKey(0)
    rng, init_rng = random.split(rng)
    state = create_train_state(init_rng, 1e-3, None)
    rng, input_rng = jax.random.split(rng)
    state, train_dataset_class = epoch_step(test=False,
                                            state=state,
                                            dataset_class=train_dataset_class,
                                            batch_size=32,
                                            rng=input_rng,
                                            mask_params=None,
                                            use_task_labels=False,
                                            l1_pruning_proportion=None,
                                            l1_reg_lambda=None,
                                            dropout_rate=None)
