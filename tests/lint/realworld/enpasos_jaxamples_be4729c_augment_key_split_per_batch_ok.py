# source: https://github.com/enpasos/jaxamples/blob/be4729ce3aa50dd82c1a2778d0b7923ef145c16f/jaxamples/mnist_vit.py
#   (the author's fix of the per-batch augmentation key in a personal JAX/flax-nnx examples
#   repository: train_model now advances `rng_key, dropout_rng = random.split(rng_key)`; the
#   jitted augmentation, the nnx.jit train step writing the cosine learning rate into an
#   inject_hyperparams AdamW state, and the rest of the trimmed code are as at 324d200)
# observed on jax 0.10.2 CPU: runs clean; six batches over two epochs get six different
#   augmentation keys and differently augmented images, the learning rate set inside the
#   nnx.jit step reaches the optimizer state, and JAX's key-reuse checker raises nothing
# gap: other
# added: the imports this part needs (onnx, torchvision, jax2onnx, orbax, matplotlib left out);
#   the VisionTransformer from jax2onnx replaced by a stand-in nnx MLP with the same
#   __call__(x, deterministic=...) signature; the MNIST DataLoader replaced by a list of small
#   random batches wrapped so that jax_collate's .numpy() works; train_model trimmed after the
#   test evaluation of each epoch (the accuracy statistics, CSV files, plots, checkpoint saving
#   and the per-epoch visualize_augmented_images call are left out); the rest of the file
#   (dataset download, visualisation, checkpointing, ONNX export and main) left out; the
#   __main__ block.
import functools
import math
from typing import Dict, Tuple, List, Any

import jax
import jax.lax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx
from flax.struct import dataclass, field
from jax import random
from jax.image import scale_and_translate
from jax.scipy.ndimage import map_coordinates

DataLoader = list  # stand-in for the annotation


def jax_collate(batch):
    images, labels = batch
    images = jnp.array(images.numpy())
    labels = jnp.array(labels.numpy())
    images = jnp.transpose(images, (0, 2, 3, 1))
    return {"image": images, "label": labels}


def rotate_image(image: jnp.ndarray, angle: float) -> jnp.ndarray:
    """Rotates an image."""
    angle_rad = jnp.deg2rad(angle)
    cos_angle = jnp.cos(angle_rad)
    sin_angle = jnp.sin(angle_rad)
    center_y, center_x = jnp.array(image.shape[:2]) / 2.0
    yy, xx = jnp.meshgrid(
        jnp.arange(image.shape[0]), jnp.arange(image.shape[1]), indexing="ij"
    )
    yy = yy - center_y
    xx = xx - center_x
    rotated_x = cos_angle * xx + sin_angle * yy + center_x
    rotated_y = -sin_angle * xx + cos_angle * yy + center_y
    rotated_image = map_coordinates(
        image[..., 0], [rotated_y.ravel(), rotated_x.ravel()], order=1, mode="constant"
    )
    rotated_image = rotated_image.reshape(image.shape[:2])
    return jnp.expand_dims(rotated_image, axis=-1)


def jax_gaussian_filter(x: jnp.ndarray, sigma: float, radius: int) -> jnp.ndarray:
    """Performs 2D Gaussian filtering on array x using separable convolutions."""
    size = 2 * radius + 1
    ax = jnp.arange(-radius, radius + 1, dtype=x.dtype)
    kernel = jnp.exp(-0.5 * (ax / sigma) ** 2)
    kernel = kernel / jnp.sum(kernel)
    kernel_h = kernel.reshape((size, 1, 1, 1))
    kernel_v = kernel.reshape((1, size, 1, 1))
    x_exp = x[None, ..., None]
    x_filtered = jax.lax.conv_general_dilated(
        x_exp,
        kernel_h,
        window_strides=(1, 1),
        padding="SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
    )
    x_filtered = jax.lax.conv_general_dilated(
        x_filtered,
        kernel_v,
        window_strides=(1, 1),
        padding="SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
    )
    return jnp.squeeze(x_filtered, axis=(0, 3))


@functools.partial(jax.jit, static_argnames=("radius",))
def elastic_deform(
    image: jnp.ndarray,
    alpha: float,
    sigma: float,
    rng_key: jnp.ndarray,
    x_grid: jnp.ndarray,
    y_grid: jnp.ndarray,
    radius: int,
) -> jnp.ndarray:
    shape = image.shape[:2]
    key_dx, key_dy = random.split(rng_key, 2)
    dx = random.normal(key_dx, shape) * alpha
    dy = random.normal(key_dy, shape) * alpha

    dx = jax_gaussian_filter(dx, sigma, radius)
    dy = jax_gaussian_filter(dy, sigma, radius)

    indices = (jnp.reshape(y_grid + dy, (-1, 1)), jnp.reshape(x_grid + dx, (-1, 1)))
    deformed_image = map_coordinates(image[..., 0], indices, order=1, mode="reflect")
    return jnp.expand_dims(deformed_image.reshape(shape), axis=-1)


@dataclass
class AugmentationParams:
    # dynamic hyperparameters
    max_translation: float
    scale_min_x:    float
    scale_max_x:    float
    scale_min_y:    float
    scale_max_y:    float
    max_rotation:   float
    elastic_alpha:  float
    elastic_sigma:  float

    # static switches — won't cause retrace when changed
    enable_elastic:      bool = field(pytree_node=False)
    enable_rotation:     bool = field(pytree_node=False)
    enable_scaling:      bool = field(pytree_node=False)
    enable_translation:  bool = field(pytree_node=False)
    enable_rect_erasing: bool = field(pytree_node=False)
    rect_erase_height:   int  = field(pytree_node=False)
    rect_erase_width:    int  = field(pytree_node=False)


@functools.partial(jax.jit, static_argnames=("augmentation_params",))
def augment_data_batch(
    batch: Dict[str, jnp.ndarray],
    rng_key: jnp.ndarray,
    augmentation_params: AugmentationParams,
) -> Dict[str, jnp.ndarray]:
    images = batch["image"]
    batch_size, height, width, channels = images.shape

    x_grid, y_grid = np.meshgrid(np.arange(width), np.arange(height), indexing="xy")
    x_grid = jnp.array(x_grid)
    y_grid = jnp.array(y_grid)

    alpha_val = augmentation_params.elastic_alpha
    sigma_val = augmentation_params.elastic_sigma
    radius_val = math.ceil(3.0 * sigma_val)

    def augment_single_image(image, key):
        key1, key2, key3, key4, key5, key6, key7, key8 = random.split(key, 8)
        max_translation = augmentation_params.max_translation
        tx = random.uniform(key1, minval=-max_translation, maxval=max_translation)
        ty = random.uniform(key2, minval=-max_translation, maxval=max_translation)
        translation = jnp.array([ty, tx])
        scale_factor_x = random.uniform(
            key3,
            minval=augmentation_params.scale_min_x,
            maxval=augmentation_params.scale_max_x,
        )
        scale_factor_y = random.uniform(
            key4,
            minval=augmentation_params.scale_min_y,
            maxval=augmentation_params.scale_max_y,
        )
        scale = jnp.array([scale_factor_y, scale_factor_x])
        max_rotation = augmentation_params.max_rotation * (jnp.pi / 180.0)
        rotation_angle = random.uniform(key5, minval=-max_rotation, maxval=max_rotation)

        if augmentation_params.enable_elastic:
            image = elastic_deform(
                image, alpha_val, sigma_val, key6, x_grid, y_grid, radius_val
            )

        if augmentation_params.enable_rotation:
            image = rotate_image(image, jnp.rad2deg(rotation_angle))

        if augmentation_params.enable_scaling or augmentation_params.enable_translation:
            image = scale_and_translate(
                image=image,
                shape=(height, width, channels),
                spatial_dims=(0, 1),
                scale=(
                    scale
                    if augmentation_params.enable_scaling
                    else jnp.array([1.0, 1.0])
                ),
                translation=(
                    translation
                    if augmentation_params.enable_translation
                    else jnp.array([0.0, 0.0])
                ),
                method="linear",
                antialias=True,
            )

        # Rectangle erasing augmentation
        if getattr(augmentation_params, "enable_rect_erasing", False):
            erase_h = getattr(augmentation_params, "rect_erase_height", 6)
            erase_w = getattr(augmentation_params, "rect_erase_width", 6)
            # Random top-left corner
            max_y = height - erase_h
            max_x = width - erase_w
            y0 = jax.lax.floor(
                random.uniform(key7, (), minval=0, maxval=max_y + 1)
            ).astype(jnp.int32)
            x0 = jax.lax.floor(
                random.uniform(key8, (), minval=0, maxval=max_x + 1)
            ).astype(jnp.int32)
            # Erase (set to 0) using dynamic_update_slice
            mask = jnp.ones_like(image)
            erase_shape = (erase_h, erase_w, channels)
            zero_patch = jnp.zeros(erase_shape, dtype=image.dtype)
            mask = jax.lax.dynamic_update_slice(mask, zero_patch, (y0, x0, 0))
            image = image * mask
        return image

    rng_keys = random.split(rng_key, num=batch_size)
    augmented_images = jax.vmap(augment_single_image)(images, rng_keys)
    return {"image": augmented_images, "label": batch["label"]}


def loss_fn(
    model: nnx.Module, batch: Dict[str, jnp.ndarray], deterministic: bool = False
) -> Tuple[jnp.ndarray, jnp.ndarray]:
    logits = model(batch["image"], deterministic=deterministic)
    loss = optax.softmax_cross_entropy_with_integer_labels(
        logits=logits, labels=batch["label"]
    ).mean()
    return loss, logits


@nnx.jit
def train_step(
    model: nnx.Module,
    optimizer: nnx.Optimizer,
    metrics: nnx.MultiMetric,
    batch: Dict[str, jnp.ndarray],
    learning_rate: float,
    weight_decay: float,
):
    model.train()
    grad_fn = nnx.value_and_grad(loss_fn, has_aux=True)
    (loss, logits), grads = grad_fn(model, batch)
    metrics.update(loss=loss, logits=logits, labels=batch["label"])
    # Update hyperparameters before calling update
    optimizer.opt_state.hyperparams['learning_rate'] = learning_rate
    optimizer.opt_state.hyperparams['weight_decay'] = weight_decay
    optimizer.update(model, grads)


@nnx.jit
def eval_step(
    model: nnx.Module, metrics: nnx.MultiMetric, batch: Dict[str, jnp.ndarray]
):
    model.eval()
    loss, logits = loss_fn(model, batch, deterministic=True)
    metrics.update(loss=loss, logits=logits, labels=batch["label"])


@nnx.jit
def pred_step(model: nnx.Module, batch: Dict[str, jnp.ndarray]) -> jnp.ndarray:
    model.eval()
    logits = model(batch["image"], deterministic=True)
    return jnp.argmax(logits, axis=1)


def lr_schedule(epoch: int, config: Dict) -> float:
    total_epochs = (
        config["training"]["start_epoch"]
        + config["training"]["num_epochs_to_train_now"]
    )
    base_lr = config["training"]["base_learning_rate"]
    # Cosine schedule computed over the full training duration
    return 0.5 * base_lr * (1 + jnp.cos(jnp.pi * epoch / total_epochs))


def create_optimizer(
    model: nnx.Module, learning_rate: float, weight_decay: float
) -> nnx.Optimizer:
    # Use inject_hyperparams to allow dynamic learning rate changes
    tx = optax.inject_hyperparams(optax.adamw)(
        learning_rate=learning_rate, weight_decay=weight_decay
    )
    return nnx.Optimizer(model, tx, wrt=nnx.Param)


# =============================================================================
# Training, evaluation, checkpointing and visualization functions
# =============================================================================


def train_model(
    model: nnx.Module,
    start_epoch: int,
    metrics: nnx.MultiMetric,
    config: Dict,
    train_dataloader: DataLoader,
    test_dataloader: DataLoader,
    rng_key: jnp.ndarray,
) -> Dict[str, list]:
    metrics_history: Dict[str, List[float]] = {
        "train_loss": [],
        "train_accuracy": [],
        "train_accuracy_mean": [],
        "train_accuracy_spread": [],
        "test_loss": [],
        "test_accuracy": [],
        "test_accuracy_mean": [],
        "test_accuracy_spread": [],
    }
    augmentation_params = AugmentationParams(**config["training"]["augmentation"])
    
    # Create optimizer once
    initial_lr = config["training"]["base_learning_rate"]
    optimizer = create_optimizer(model, initial_lr, 1e-4)

    for epoch in range(
        start_epoch, start_epoch + config["training"]["num_epochs_to_train_now"]
    ):
        learning_rate = lr_schedule(epoch, config)
        weight_decay = min(1e-4, learning_rate / 10)
        
        print(f"Epoch: {epoch}, Learning rate: {learning_rate:.6e}")

        metrics.reset()
        for batch in train_dataloader:
            batch = jax_collate(batch)
            rng_key, dropout_rng = random.split(rng_key)
            batch = augment_data_batch(batch, dropout_rng, augmentation_params)
            train_step(model, optimizer, metrics, batch, learning_rate, weight_decay)

        for metric, value in metrics.compute().items():
            metrics_history[f"train_{metric}"].append(value.item())
        print(
            f"[train] epoch: {epoch}, loss: {metrics_history['train_loss'][-1]:.4f}, "
            f"accuracy: {metrics_history['train_accuracy'][-1]:.4f}"
        )

        metrics.reset()
        for test_batch in test_dataloader:
            test_batch = jax_collate(test_batch)
            eval_step(model, metrics, test_batch)
        for metric, value in metrics.compute().items():
            metrics_history[f"test_{metric}"].append(value.item())
        metrics.reset()
        print(
            f"[test] epoch: {epoch}, loss: {metrics_history['test_loss'][-1]:.4f}, "
            f"accuracy: {metrics_history['test_accuracy'][-1]:.4f}"
        )
    return metrics_history


class VisionTransformer(nnx.Module):  # stand-in
    def __init__(self, num_classes, rngs):
        self.dense1 = nnx.Linear(64, 32, rngs=rngs)
        self.dropout = nnx.Dropout(0.1, rngs=rngs)
        self.dense2 = nnx.Linear(32, num_classes, rngs=rngs)

    def __call__(self, x, deterministic=False):
        x = x.reshape((x.shape[0], -1))
        x = self.dropout(nnx.relu(self.dense1(x)), deterministic=deterministic)
        return self.dense2(x)


class _Tensor:  # stand-in for a torch tensor
    def __init__(self, a):
        self.a = a

    def numpy(self):
        return self.a


if __name__ == "__main__":
    rs = np.random.default_rng(0)
    images = rs.normal(size=(8, 1, 8, 8)).astype(np.float32)
    labels = rs.integers(0, 10, size=(8,)).astype(np.int32)
    # the same images and labels in every batch, so that only the augmentation key differs
    train_dataloader = [(_Tensor(images), _Tensor(labels)) for _ in range(3)]
    test_dataloader = [(_Tensor(images), _Tensor(labels))]
    config = {
        "training": {
            "start_epoch": 0,
            "num_epochs_to_train_now": 2,
            "base_learning_rate": 1e-3,
            "augmentation": dict(
                max_translation=1.0, scale_min_x=0.9, scale_max_x=1.1, scale_min_y=0.9,
                scale_max_y=1.1, max_rotation=15.0, elastic_alpha=1.0, elastic_sigma=0.5,
                enable_elastic=True, enable_rotation=True, enable_scaling=True,
                enable_translation=True, enable_rect_erasing=True, rect_erase_height=2,
                rect_erase_width=2,
            ),
        }
    }
    model = VisionTransformer(10, rngs=nnx.Rngs(0))
    metrics = nnx.MultiMetric(
        accuracy=nnx.metrics.Accuracy(), loss=nnx.metrics.Average("loss")
    )

    keys, augmented = [], []
    _augment_data_batch = augment_data_batch

    def augment_data_batch(batch, rng_key, augmentation_params):
        keys.append(rng_key)
        out = _augment_data_batch(batch, rng_key, augmentation_params)
        augmented.append(out["image"])
        return out

    optimizers = []
    _create_optimizer = create_optimizer

    def create_optimizer(model, learning_rate, weight_decay):
        optimizers.append(_create_optimizer(model, learning_rate, weight_decay))
        return optimizers[-1]

    history = train_model(
        model, 0, metrics, config, train_dataloader, test_dataloader, random.PRNGKey(0)
    )
    assert len(history["train_loss"]) == 2 and len(keys) == 6
    # every batch gets its own augmentation key, and the same images come out augmented differently
    kd = [tuple(np.asarray(random.key_data(k)).ravel().tolist()) for k in keys]
    assert len(set(kd)) == 6
    assert all(not bool(jnp.array_equal(a, augmented[0])) for a in augmented[1:])
    # the learning rate written into opt_state.hyperparams inside the nnx.jit step reaches the
    # optimizer: it holds the last epoch's cosine value
    lr = optimizers[0].opt_state.hyperparams["learning_rate"]
    assert abs(float(jnp.asarray(lr)) - float(lr_schedule(1, config))) < 1e-9
