# source: https://github.com/gabisurita/vrp-attention-jax/blob/1109c387838d570d4c8379528bc8d1665b0fd4f4/train.py
# observed on jax 0.10.2 CPU: the training loop splits `rollout_rng` into a fresh `step_rng` at
#   every batch but never uses it: the per-device keys come from `jax.random.split(rng, ...)`,
#   and `rng` is never rebound in the loop, so every REINFORCE step samples its routes with
#   the same keys (equal device_rngs at every step). The parent commit 87196c3 passed
#   `step_rng` to the step.
# gap: other
# added: imports; data.py's VRP, ProblemConfig and create_batch as in the repository; a
#   stand-in for nn.py's AttentionModel (init gives a dict holding one weight vector, `solve` samples routes
#   from node logits with `jax.random.categorical` from the key it is given; nn.py's get_cost
#   as written); a stand-in for data.py's tensorflow dataset (`create_dataset` returns the
#   batch and `batched` cuts it into [devices, per-device] numpy batches as the tf.data
#   pipeline did); TrainConfig and AttentionModel built directly with small sizes instead of
#   simple_parsing's ArgumentParser; mlflow logging, the colab TPU setup, the evaluation part of
#   the epoch and the checkpoint saving left out; the `seen_device_rngs` record in the loop and
#   the check at the end of the __main__ block.
import pickle
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple, Optional

import flax
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import struct
from flax.training.train_state import TrainState
from tqdm.auto import tqdm


class VRP(NamedTuple):
    mask: jnp.ndarray
    coords: jnp.ndarray
    demands: jnp.ndarray


@struct.dataclass
class ProblemConfig:
    num_samples: int = 512
    min_customers: int = 50
    max_customers: int = 50
    min_demand: int = 1
    max_demand: int = 10
    capacity: int = 40


@partial(jax.jit, static_argnums=(0,))
def create_batch(config, rng):
    bs, n = config.num_samples, config.max_customers + 1

    rng, size_rng = jax.random.split(rng)
    sizes = jax.random.randint(
        size_rng,
        shape=(bs,),
        minval=1 + config.min_customers,
        maxval=config.max_customers,
    )

    mask = jnp.arange(n)[None, :] < sizes[:, None]

    rng, coords_rng = jax.random.split(rng)
    coords = jax.random.uniform(
        coords_rng,
        shape=(bs, n, 2),
        minval=0.0,
        maxval=1.0,
    )

    coords = jnp.where(mask[:, :, None], coords, 0.0)

    rng, demands_rng = jax.random.split(rng)
    demands = (
        jax.random.randint(
            demands_rng,
            shape=(bs, n),
            minval=config.min_demand,
            maxval=config.max_demand,
        )
        / jnp.array(config.capacity, dtype=jnp.float32)
    )

    demands = jnp.where(mask, demands, 0.0).at[:, 0].set(0.0)

    return VRP(mask, coords, demands)


def create_dataset(config, rng):  # stand-in for data.py's tf.data.Dataset of create_batch
    return jax.tree.map(np.asarray, create_batch(config, rng))


def batched(dataset, per_device, num_devices):  # stand-in for .batch().batch().enumerate()
    total = dataset.coords.shape[0] // (per_device * num_devices)
    for t in range(total):
        sl = slice(t * per_device * num_devices, (t + 1) * per_device * num_devices)
        yield t, jax.tree.map(
            lambda x: x[sl].reshape((num_devices, per_device) + x.shape[1:]), dataset
        )


def get_cost(coords, route):
    max_size = coords.shape[0]

    src = jnp.tile(coords[None], (max_size, 1, 1))
    tgt = jnp.tile(coords[:, None], (1, max_size, 1))

    distances = tgt - src
    distances = jnp.sum(distances ** 2, axis=-1) ** 0.5

    src = route[:-1]
    dst = route[1:]

    step_distances = distances[src, dst]

    return jnp.sum(step_distances)


def get_costs(coords, routes):
    return jax.vmap(get_cost)(coords, routes)


@dataclass(unsafe_hash=True)
class AttentionModel:  # stand-in for nn.py's AttentionModel
    embed_dim: int = 128

    def init(self, rng):
        return {"w": jax.random.normal(rng, (3,))}

    @partial(jax.jit, static_argnums=(0,), static_argnames=("deterministic",))
    def solve(self, params, rng, problems, deterministic=False):
        feats = jnp.concatenate([problems.coords, problems.demands[..., None]], -1)
        logits = jnp.where(problems.mask, feats @ params["w"], -1e9)
        bs, n = logits.shape
        if deterministic:
            routes = jnp.argsort(-logits, axis=-1)
        else:
            routes = jax.random.categorical(rng, logits, axis=-1, shape=(n, bs)).T
        log_probs = jnp.take_along_axis(jax.nn.log_softmax(logits), routes, -1).sum(-1)
        return get_costs(problems.coords, routes), log_probs, routes


@dataclass
class TrainConfig:

    task: str = ""
    """Task name, used to identify the run."""

    seed: int = 0
    """Random global seed."""

    max_customers: int = 100
    """Maximum number customers in the problem. Doesn't include the depot."""

    min_customers: int = 100
    """Minimum number customers in the problem. Doesn't include the depot."""

    num_train_samples: int = 128_000
    """Number of training samples per epoch."""

    num_validation_samples: int = 10_000
    """Number of validation samples per epoch."""

    capacity: int = 40
    """Capacity of the vehicle."""

    batch_size: int = 512
    """Training batch size."""

    epochs: int = 1000
    """Number of training epochs."""

    warmup_epochs: int = 1
    """Number of warmup epochs (without rollout baseline)."""

    learning_rate: float = 1e-4
    """Adam learning rate."""

    gradient_clipping: float = 1.0
    """Global gradient clipping."""

    weight_decay: float = 0.0
    """AdamW weight decay."""

    save_path: str = "./weights/"
    """Path to save model checkpoints."""

    load_path: Optional[str] = None
    """Load a previous checkpoint."""

    use_tqdm: bool = True
    """If false, disables tqdm."""

    log_every: int = 10
    """Frequency to log batch statistics."""


@jax.jit
def reinforce_step(state, rng, problems):
    def loss_fn(params):
        costs, log_probs, _ = state.apply_fn(params, rng, problems)
        baseline = jnp.mean(costs)
        loss = jnp.mean((costs - baseline) * log_probs)
        return loss, jnp.mean(costs)

    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
    (loss, costs), grads = grad_fn(state.params)

    # Support gradient across devices.
    grads = jax.lax.pmean(grads, "batch")

    training_state = state.apply_gradients(grads=grads)
    return training_state, loss, costs


@jax.jit
def reinforce_with_rollout_step(state, baseline_params, rng, problems):
    def loss_fn(params):
        costs, log_probs, _ = state.apply_fn(params, rng, problems)
        baseline, _, _ = state.apply_fn(
            baseline_params, rng, problems, deterministic=True
        )
        loss = jnp.mean((costs - baseline) * log_probs)
        return loss, jnp.mean(costs)

    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
    (loss, costs), grads = grad_fn(state.params)

    # Support gradient across devices.
    grads = jax.lax.pmean(grads, "batch")

    state = state.apply_gradients(grads=grads)
    return state, loss, costs


if __name__ == "__main__":

    cfg = TrainConfig(
        max_customers=6, min_customers=4, num_train_samples=32, num_validation_samples=8,
        batch_size=8, epochs=1, use_tqdm=False,
    )

    devices = jax.devices()

    print(devices)

    dataset_config = ProblemConfig(
        num_samples=cfg.num_train_samples,
        min_customers=cfg.min_customers,
        max_customers=cfg.max_customers,
        capacity=cfg.capacity,
    )

    model = AttentionModel(embed_dim=16)

    # Initialize global RNG.
    rng = jax.random.PRNGKey(cfg.seed)

    rng, train_data_rng = jax.random.split(rng)
    rng, val_data_rng = jax.random.split(rng)
    rng, params_rng = jax.random.split(rng)
    rng, rollout_rng = jax.random.split(rng)

    params = model.init(params_rng)

    # If a checkpoint is passed, preload weights from it.
    if cfg.load_path:
        with open(cfg.load_path, "rb") as f:
            params = pickle.load(f)

    parallel_reinforce_step = jax.pmap(
        reinforce_step,
        axis_name="batch",
    )

    parallel_reinforce_with_rollout_step = jax.pmap(
        reinforce_with_rollout_step,
        axis_name="batch",
    )

    optimizer = optax.chain(
        optax.clip_by_global_norm(cfg.gradient_clipping),
        # Use adam with weight decay as it sometimes leads to better generalization.
        optax.adamw(learning_rate=cfg.learning_rate, weight_decay=cfg.weight_decay),
    )

    # Create the training state with the model.solve funtion.
    state = TrainState.create(apply_fn=model.solve, params=params, tx=optimizer)

    # Replicate state across devices.
    state = flax.jax_utils.replicate(state)

    # Copy params to the baseline model.
    baseline_params = state.params

    seen_device_rngs = []

    # Training loop.
    for epoch in range(cfg.epochs):

        # Sample the training data.
        train_data_rng, train_epoch_rng = jax.random.split(train_data_rng)
        train_dataset = batched(
            create_dataset(dataset_config, train_epoch_rng),
            cfg.batch_size // len(devices),
            len(devices),
        )

        batches_per_epoch = int(np.ceil(cfg.num_train_samples // cfg.batch_size))
        pbar = tqdm(train_dataset, total=batches_per_epoch, disable=not cfg.use_tqdm)

        for t, inputs in pbar:
            rollout_rng, step_rng = jax.random.split(rollout_rng)

            device_rngs = jax.random.split(rng, len(devices))  # expect: JIT502
            seen_device_rngs.append(device_rngs)

            # Warmup.
            if cfg.load_path is None and epoch < cfg.warmup_epochs:
                state, loss, costs = parallel_reinforce_step(state, device_rngs, inputs)

            # Greedy rollout baseline.
            else:
                state, loss, costs = parallel_reinforce_with_rollout_step(
                    state, baseline_params, device_rngs, inputs
                )

            # Means across devices.
            loss, costs = loss.mean(), costs.mean()

            step_metrics = {
                "epoch": epoch,
                "timestep": t,
                "train_loss": float(loss),
                "train_costs": float(costs),
            }

            pbar.set_postfix(loss=loss, costs=costs)

    # observed: line 314 hands the same per-device keys to every training step
    assert len(seen_device_rngs) == 4
    assert all(bool((seen_device_rngs[0] == k).all()) for k in seen_device_rngs)
