# source: https://github.com/samuelstevens/sax/blob/e691cbb96701795546669cce2b00adf568de474f/sax/train.py
# observed on jax 0.10.2 CPU: evaluate() defines _compute_loss and wraps it in a new
#   eqx.filter_jit on every call, and train() calls evaluate after every epoch, so each
#   epoch's evaluation traces and compiles _compute_loss again (3 compilations over 3
#   epochs, same model and batch shapes, where one would do); the jitted training step
#   compiles once
# gap: per-call-recompile
# added: stand-ins for what is not installed or not in this file, in place of `import
#   beartype`, `import tyro`, `import wandb` and `from . import helpers, nn, tracking`:
#   beartype.beartype (returns its argument), wandb.init (a run that keeps nothing),
#   helpers.to_aim_value/helpers.save and tracking.save (no-ops), and the classes of
#   sax/nn.py at the same commit from Loss on (Loss, ReluSAE, ReparamInvariantReluSAE,
#   gathered in a namespace `nn`; the jumprelu/heaviside helpers before them, which train()
#   does not use, are left out); jaxtyping.jaxtyped replaced by a stand-in that returns its
#   argument (jaxtyping 0.3.11's raises AttributeError '__globals__' on the eqx.filter_jit
#   of step, and with beartype absent it would check nothing); the __main__ block, which
#   writes small activation files to a temporary folder and trains on them (3 epochs)
#   instead of tyro.cli(Args).
import collections.abc
import dataclasses
import logging
import os.path
import time
import types
import typing

import chex
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax
from jaxtyping import Array, Float


def jaxtyped(typechecker=None):  # stand-in: jaxtyping 0.3.11's cannot wrap an eqx.filter_jit
    return lambda obj: obj


class beartype:  # stand-in: beartype is not installed
    @staticmethod
    def beartype(obj):
        return obj


class _Run:  # stand-in for a disabled wandb run
    id = "run0"
    summary = {}

    def log(self, metrics, step=None):
        pass

    def finish(self):
        pass


class wandb:  # stand-in: wandb is not installed
    @staticmethod
    def init(**kwargs):
        return _Run()


class helpers:  # stand-in for sax/helpers.py
    @staticmethod
    def to_aim_value(value):
        return value

    @staticmethod
    def save(filename, model_kwargs, model):
        pass


class tracking:  # stand-in for sax/tracking.py
    @staticmethod
    def save(run_id, hparams, summary):
        pass


# sax/nn.py at the same commit, from class Loss on
@jaxtyped(typechecker=beartype.beartype)
class Loss(eqx.Module):
    reconstruction: Float[Array, ""]
    sparsity: Float[Array, ""]
    l0: Float[Array, ""]
    trivial: Float[Array, ""]

    @property
    def loss(self) -> Float[Array, ""]:
        return self.reconstruction + self.sparsity

    @property
    def fvu(self) -> Float[Array, ""]:
        return self.loss / self.trivial

    def to_dict(self) -> dict[str, float]:
        return {
            "train/loss": self.loss.item(),
            "train/reconstruction": self.reconstruction.item(),
            "train/sparsity": self.sparsity.item(),
            "train/fvu": self.fvu.item(),
            "train/l0": self.l0.item(),
            "train/trivial": self.trivial.item(),
        }


@jaxtyped(typechecker=beartype.beartype)
class ReluSAE(eqx.Module):
    w_enc: Float[Array, "d_hidden d_in"]
    b_enc: Float[Array, " d_hidden"]
    w_dec: Float[Array, "d_in d_hidden"]
    b_dec: Float[Array, " d_in"]
    pre_enc_bias: bool

    def __init__(
        self, d_in: int, d_hidden: int, *, pre_enc_bias: bool, key: chex.PRNGKey
    ):
        init_fn = jax.nn.initializers.he_uniform()
        w_dec = init_fn(key, (d_in, d_hidden), jnp.float32)
        # Re-scale each latent vector to have unit norm. w_dec is [n_features, d_model], so we want to take the norm along axis=1 (0-indexed).
        self.w_dec = w_dec / jnp.linalg.norm(w_dec, axis=1, keepdims=True)

        # Initialize w_enc to transpose of w_dec, but do not tie.
        self.w_enc = self.w_dec.T

        # Initialize biases to 0.
        self.b_enc = jnp.zeros((d_hidden,))
        self.b_dec = jnp.zeros((d_in,))

        self.pre_enc_bias = pre_enc_bias

    def __call__(
        self, x: Float[Array, " d_in"]
    ) -> tuple[Float[Array, " d_in"], Float[Array, " d_hidden"]]:
        if self.pre_enc_bias:
            x = x - self.b_dec
        x = self.w_enc @ x + self.b_enc
        f_x = jax.nn.relu(x)
        x_hat = self.w_dec @ f_x + self.b_dec
        return x_hat, f_x

    @staticmethod
    def loss(
        model: typing.Self,
        x: Float[Array, "batch d_in"],
        sparsity_coeff: Float[Array, ""],
    ) -> Loss:
        x_hat, f_x = jax.vmap(model)(x)

        reconstruct_err = x - x_hat
        reconstruct_loss = jnp.sum(reconstruct_err**2, axis=-1).mean()

        l1 = jnp.linalg.norm(f_x, ord=1, axis=-1)
        sparsity_loss = (sparsity_coeff * l1).mean()

        # Measure l0 sparsity as auxilary metric.
        l0 = jnp.sum(f_x > 0, axis=1).mean()

        # Measure trivial loss, the loss obtained by choosing the batch mean.
        trivial_err = x - x.mean(axis=0)
        trivial_loss = (trivial_err**2).sum(axis=-1).mean()

        return Loss(reconstruct_loss, sparsity_loss, l0, trivial_loss)


@jaxtyped(typechecker=beartype.beartype)
class ReparamInvariantReluSAE(ReluSAE):
    @staticmethod
    def loss(
        model: typing.Self,
        x: Float[Array, "batch d_in"],
        sparsity_coeff: Float[Array, ""],
        mean_act: Float[Array, " d_in"] | None = None,
    ) -> Loss:
        x_hat, f_x = jax.vmap(model)(x)

        reconstruct_err = x - x_hat
        reconstruct_loss = jnp.sum(reconstruct_err**2, axis=-1).mean()

        # Reparameterization-invariant L1
        # sum_^M f_x_i * ||d_i||2
        ri_l1 = f_x @ jnp.linalg.norm(model.w_dec, axis=0)
        sparsity_loss = (sparsity_coeff * ri_l1).mean()

        # Measure l0 sparsity as auxilary metric.
        l0 = jnp.sum(f_x > 0, axis=1).mean()

        # Measure trivial loss, the loss obtained by choosing the batch mean.
        trivial_err = x - x.mean(axis=0)
        trivial_loss = (trivial_err**2).sum(axis=-1).mean()

        return Loss(reconstruct_loss, sparsity_loss, l0, trivial_loss)


# sax/nn.py as a namespace, as train.py imports it
nn = types.SimpleNamespace(
    Loss=Loss, ReluSAE=ReluSAE, ReparamInvariantReluSAE=ReparamInvariantReluSAE
)

DataNorm = typing.Literal[None, "example", "batch"]


@beartype.beartype
@dataclasses.dataclass(frozen=True)
class Args:
    train_activations: str = "activations-train.bin"
    """training activations."""
    val_activations: str = "activations-val.bin"
    """validation activations."""
    d_model: int = 768
    """model dimension."""
    n_layers: int = 12
    """number of model layers."""
    n_train: int = 1281167
    """number of train activations"""
    n_val: int = 50_000
    """number of val activations"""
    data_norm: DataNorm = None
    """how to normalize activations before auto-encoding."""

    expansion_factor: int = 64
    """how many times larger the SAE's hidden layer should be."""
    sparsity_coeff: float = 1e-3
    """how much to upweight loss_sparsity."""
    batch_size: int = 4096
    """batch size."""
    learning_rate: float = 7e-5
    """peak learning rate."""
    beta1: float = 0.9
    beta2: float = 0.999
    n_lr_warmup: int = 300
    """number of learning rate warmup steps."""
    n_sparsity_warmup: int = 1_000
    """number of sparsity coefficient warmup steps."""
    grad_clip: float = 0.0
    """maximum gradient norm. 0.0 indicates no maximum."""
    n_epochs: int = 4
    """number of epochs."""
    pre_enc_bias: bool = True
    """whether to subtract b_dec before sae."""

    seed: int = 42
    """random seed."""
    log_every: int = 100
    """how often to log metrics."""
    track: bool = True
    """whether to track metrics using Aim."""
    ckpt_dir: str = os.path.join(".", "checkpoints")
    """where to store model checkpoints."""
    tags: list[str] = dataclasses.field(default_factory=list)
    """any tags for this specific run."""


@jaxtyped(typechecker=beartype.beartype)
def make_dataloader(
    args: Args, key: chex.PRNGKey, *, is_train: bool
) -> collections.abc.Iterable[Float[Array, "batch d_model"]]:
    n_activations = args.n_train if is_train else args.n_val
    activations_path = args.train_activations if is_train else args.val_activations
    shape = (n_activations, args.n_layers, args.d_model)
    data = np.memmap(activations_path, dtype=np.float32, mode="r", shape=shape)
    n_examples = n_activations * args.n_layers
    data = data.reshape(n_examples, args.d_model)

    # Double batch size for validation (no gradients)
    batch_size = args.batch_size + is_train * args.batch_size

    i = jax.random.permutation(key, n_examples)
    start = 0
    while True:
        end = min(start + batch_size, n_examples)
        yield jnp.array(data[i[start:end]])
        start = end
        if start >= n_examples:
            break


@jaxtyped(typechecker=beartype.beartype)
def normalize(
    kind: DataNorm, batch: Float[Array, "batch d_model"]
) -> Float[Array, "batch d_model"]:
    if kind == "batch":
        breakpoint()
        batch_norm = None
        batch = batch / batch_norm
    if kind == "example":
        example_norms = jnp.linalg.norm(batch, axis=1, keepdims=True)
        return batch / example_norms
    if kind is None:
        return batch
    typing.assert_never(kind)


@jaxtyped(typechecker=beartype.beartype)
@eqx.filter_jit(donate="all")
def step(
    model: eqx.Module,
    optim: optax.GradientTransformation | optax.MultiSteps,
    state: optax.OptState | optax.MultiStepsState,
    batch: Float[Array, "batch d_model"],
    sparsity_coeff: Float[Array, ""],
    data_norm: DataNorm,
) -> tuple[eqx.Module, optax.OptState | optax.MultiStepsState, nn.Loss]:
    batch = normalize(data_norm, batch)

    @jaxtyped(typechecker=beartype.beartype)
    def _compute_loss(model: eqx.Module) -> tuple[Float[Array, ""], nn.Loss]:
        """Compute loss. Return the complete loss (loss.loss) as the first term for optimization and the pytree `loss` for metrics."""
        loss = model.loss(model, batch, sparsity_coeff)
        return loss.loss, loss

    (_, loss), grads = eqx.filter_value_and_grad(_compute_loss, has_aux=True)(model)
    updates, new_state = optim.update(grads, state, model)
    model = eqx.apply_updates(model, updates)
    return model, new_state, loss


@jaxtyped(typechecker=beartype.beartype)
def evaluate(args: Args, sae: eqx.Module, key: chex.PRNGKey) -> dict[str, float]:
    """
    Evaluates a sparse autoencoder on the validation datset, computing mean L2 loss, mean L0 sparsity, and the trivial validation loss using the mean batch activation.

    Args:
        args: run configuration.
        sae: the sparse autoencoder under evaluation.

    Returns:
        A dictionary of metrics.
    """

    @jaxtyped(typechecker=beartype.beartype)
    @eqx.filter_jit(donate="all-except-first")  # expect: JIT301
    def _compute_loss(model: eqx.Module, batch: Float[Array, "b d"]) -> nn.Loss:
        batch = normalize(args.data_norm, batch)

        loss = model.loss(model, batch, args.sparsity_coeff)

        return loss

    # We need to shuffle the validation data because we use the batch mean to calculate the trivial loss, so we don't want the examples to be correlated.
    dataloader = make_dataloader(args, key, is_train=False)
    losses = []
    for batch in dataloader:
        loss = _compute_loss(sae, batch)
        losses.append(loss)

    mean = jax.tree.map(lambda *x: jnp.array(x).mean(), *losses)

    return {f"val/{key}": value for key, value in mean.to_dict().items()}


@beartype.beartype
def train(args: Args) -> str:
    key = jax.random.key(seed=args.seed)
    logger = logging.getLogger(__file__)

    # 1. Define the model and optimizers.
    key, subkey = jax.random.split(key)
    model_kwargs = {
        "d_in": args.d_model,
        "d_hidden": args.expansion_factor * args.d_model,
        "pre_enc_bias": args.pre_enc_bias,
    }
    sae = nn.ReparamInvariantReluSAE(**model_kwargs, key=subkey)
    sparsity_schedule = optax.schedules.warmup_constant_schedule(
        0.0, args.sparsity_coeff, args.n_sparsity_warmup
    )
    n_steps = jnp.ceil(
        args.n_train * args.n_layers * args.n_epochs / args.batch_size
    ).astype(int)
    lr_schedule = optax.schedules.warmup_cosine_decay_schedule(
        0.0, args.learning_rate, args.n_lr_warmup, n_steps
    )
    optim = optax.adamw(
        learning_rate=lr_schedule, b1=args.beta1, b2=args.beta2, weight_decay=0.0
    )
    if args.grad_clip > 0:
        optim = optax.chain(optim, optax.clip_by_global_norm(args.grad_clip))

    state = optim.init(eqx.filter(sae, eqx.is_inexact_array))

    mode = "online" if args.track else "disabled"
    hparams = {k: helpers.to_aim_value(v) for k, v in vars(args).items()}
    run = wandb.init(
        project="sax",
        entity="samuelstevens",
        config=hparams,
        tags=args.tags,
        mode=mode,
        reinit=True,
    )

    # Train the model.
    global_step = 0
    start_time = time.time()

    for epoch in range(args.n_epochs):
        # Make dataloader
        key, subkey = jax.random.split(key)
        train_dataloader = make_dataloader(args, subkey, is_train=True)

        # Iterate through all examples in random order.
        for batch in train_dataloader:
            sae, state, loss = step(
                sae, optim, state, batch, sparsity_schedule(global_step), args.data_norm
            )
            global_step += 1

            if global_step % args.log_every == 0:
                step_per_sec = global_step / (time.time() - start_time)
                metrics = {
                    **loss.to_dict(),
                    "step_per_sec": step_per_sec,
                    "learning_rate": lr_schedule(global_step).item(),
                    "sparsity_coeff": sparsity_schedule(global_step).item(),
                    "epoch": epoch,
                }
                run.log(metrics, step=global_step)
                logger.info(
                    "step: %d, loss: %.5f, step/sec: %.2f",
                    global_step,
                    loss.loss.item(),
                    step_per_sec,
                )

        # Evaluate
        key, subkey = jax.random.split(key)
        metrics = evaluate(args, sae, subkey)
        metrics["epoch"] = epoch
        run.log(metrics, step=global_step)
        logger.info(
            ", ".join(f"{key}: {value}" for key, value in sorted(metrics.items()))
        )

    # 4. Save model.
    helpers.save(os.path.join(args.ckpt_dir, f"{run.id}.eqx"), model_kwargs, sae)
    tracking.save(run.id, hparams, dict(run.summary))
    run.finish()
    return run.id


if __name__ == "__main__":
    import tempfile

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: compiles.append(kw.get("fun_name"))
        if name == "/jax/core/compile/backend_compile_duration" else None)

    evaluated = []
    _evaluate = evaluate

    def evaluate(args, sae, key):  # count _compute_loss compilations per evaluation
        n0 = len(compiles)
        metrics = _evaluate(args, sae, key)
        evaluated.append(compiles[n0:].count("jit(_compute_loss)"))
        return metrics

    with tempfile.TemporaryDirectory() as tmp:
        rng = np.random.default_rng(0)
        d_model, n_layers, n_train, n_val = 8, 2, 32, 24
        rng.standard_normal((n_train, n_layers, d_model), dtype=np.float32).tofile(
            os.path.join(tmp, "activations-train.bin"))
        rng.standard_normal((n_val, n_layers, d_model), dtype=np.float32).tofile(
            os.path.join(tmp, "activations-val.bin"))
        args = Args(
            train_activations=os.path.join(tmp, "activations-train.bin"),
            val_activations=os.path.join(tmp, "activations-val.bin"),
            d_model=d_model, n_layers=n_layers, n_train=n_train, n_val=n_val,
            expansion_factor=2, batch_size=16, n_epochs=3, track=False, n_lr_warmup=2, n_sparsity_warmup=4,
            ckpt_dir=os.path.join(tmp, "checkpoints"),
        )
        train(args)

    # Each epoch's evaluation (same SAE shapes, same 16-example batches) compiles
    # _compute_loss again; the module-level jitted step compiles once.
    print("compilations of _compute_loss per evaluate call:", evaluated)
    assert evaluated == [1, 1, 1], evaluated
    assert compiles.count("jit(step)") == 1, compiles
# observed: line 331 each of the 3 evaluate calls (one per epoch) compiles _compute_loss again: [1, 1, 1]
