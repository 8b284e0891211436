# source: https://github.com/GroupiSP/qmodem/blob/697be0bbed8d2b33d1affd954393784117a28ba8/src/qmodem/train_base.py
#   (OutputVarianceTracker before commit 5d7352b "[review] Correct key splitting in output
#   variance tracker", which splits `self.key` into a new key and a sample key on every
#   Monte Carlo sample; with `model_fwd` of src/qmodem/module.py at the same commit)
# observed on jax 0.10.2 CPU: with flax 0.12.8, the tracker's Monte Carlo loop splits the
#   same `self.key` on every sample, so every one of its `n_samples` passes through
#   `model_fwd` (an `nnx.vmap` that builds each row's dropout `nnx.Rngs` from its subkey)
#   draws the same dropout masks: the samples are identical and the logged "variance of the
#   predictive mean" is 0 up to rounding (about 1e-14) at every epoch, although dropout is
#   active (two different keys give different outputs; ten fresh keys give a variance above
#   1e-4). Kept from the source: `TrainingPhase`, `BaseTrainingContext`,
#   `OutputVarianceTracker` and `model_fwd`. Changed: `mlflow.log_metric` -> a stand-in
#   `log_metric` that records the values (no tracking server). Added: a stand-in MC-dropout
#   model (a Linear layer, Dropout and a Linear head taking `rngs` at call time, as the
#   repository's models do), the input batch and the `__main__` block.
# gap: other
from __future__ import annotations

import dataclasses
from enum import Enum, auto

import flax.nnx as nnx
import jax
import jax.numpy as jnp

logged = []


def log_metric(name, value, step):
    logged.append((name, float(value), step))


@nnx.vmap(in_axes=(None, 0, 0), out_axes=0)
def model_fwd(model: nnx.Module, x_i: jax.Array, key: jax.Array) -> jax.Array:
    # NOTE: we need to add a batch dimension to x_i since the model expects a batch of inputs.
    # NOTE: we need to remove the batch dimension from the output since we only want the output for the single input x_i.
    return model(x_i[None], rngs=nnx.Rngs(default=key))[0]


class TrainingPhase(Enum):
    INIT = auto()
    EPOCH_START = auto()
    EVAL_START = auto()
    EPOCH_END = auto()
    BEFORE_RETURN = auto()


@dataclasses.dataclass
class BaseTrainingContext:
    epoch: int
    val_loss: float
    best_val_loss: float
    model: nnx.Module  # Replace with the actual model type if known
    model_best_state: nnx.State  # Replace with the actual model state type if known


class OutputVarianceTracker:
    def __init__(
        self, base_key: jax.Array, X_batch: jax.Array, n_samples: int = 100
    ) -> None:
        """Callback to track the variance of the predictive mean over a batch of
        inputs."""
        self.key = base_key
        self.X_batch = X_batch
        self.n_samples = n_samples

    def __call__(self, phase: TrainingPhase, context: BaseTrainingContext) -> None:
        if phase == TrainingPhase.EPOCH_END:
            context.model.train()  # e.g. MCD

            preds = []
            for _ in range(self.n_samples):
                subkeys = jax.random.split(self.key, num=self.X_batch.shape[0])  # expect: JIT502
                preds.append(model_fwd(context.model, self.X_batch, subkeys))

            preds = jnp.stack(preds, axis=0)  # Shape (n_samples, batch_size, 2)
            var_preds = jnp.var(preds, axis=0)  # Variance across samples for each input
            mean_var_preds = jnp.mean(
                var_preds, axis=0
            )  # Mean variance across the batch

            context.model.eval()
            log_metric(
                "predictive_mean_variance",
                mean_var_preds[0],
                step=context.epoch,
            )
            log_metric(
                "predictive_variance_variance",
                mean_var_preds[1],
                step=context.epoch,
            )


class MCDNet(nnx.Module):
    def __init__(self, rngs: nnx.Rngs) -> None:
        self.hidden = nnx.Linear(5, 32, rngs=rngs)
        self.dropout = nnx.Dropout(0.2)
        self.head = nnx.Linear(32, 2, rngs=rngs)

    def __call__(self, x: jax.Array, rngs: nnx.Rngs) -> jax.Array:
        x = self.dropout(nnx.gelu(self.hidden(x)), rngs=rngs)
        out = self.head(x)
        return jnp.concat([out[:, :1], nnx.softplus(out[:, 1:])], axis=1)


if __name__ == "__main__":
    model = MCDNet(nnx.Rngs(0))
    X_batch = jax.random.normal(jax.random.key(3), (6, 5))
    tracker = OutputVarianceTracker(jax.random.key(1), X_batch, n_samples=10)
    context = BaseTrainingContext(epoch=0, val_loss=0.0, best_val_loss=0.0, model=model,
                                  model_best_state=nnx.state(model, nnx.Param))
    for epoch in range(2):
        context.epoch = epoch
        tracker(TrainingPhase.EPOCH_END, context)

    model.train()
    a = model_fwd(model, X_batch, jax.random.split(jax.random.key(1), 6))
    b = model_fwd(model, X_batch, jax.random.split(jax.random.key(2), 6))
    # observed: line 73 splits the same key for every Monte Carlo sample: all samples are equal and the logged variances are 0 up to rounding
    assert bool((a != b).any()), "dropout inactive"
    fresh = jnp.stack([model_fwd(model, X_batch, jax.random.split(k, 6))
                       for k in jax.random.split(jax.random.key(5), 10)])
    fresh_var = float(jnp.mean(jnp.var(fresh, axis=0), axis=0)[0])
    assert fresh_var > 1e-4, fresh_var
    assert all(value < 1e-10 for _, value, _ in logged), logged
    assert len(logged) == 4, logged
    model.eval()
