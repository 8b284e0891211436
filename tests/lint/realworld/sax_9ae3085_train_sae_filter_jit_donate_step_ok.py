# source: https://github.com/samuelstevens/sax/blob/9ae3085c7faaf24a56949a0c9f3ed4fa6947bbd0/train_sae.py
# observed on jax 0.10.2 CPU: the SAE training step is an eqx.filter_jit(donate="all") whose
#   model and optimizer state are rebound from its outputs every call; the optimizer and the
#   Python float sparsity_coeff are static and never change, so over 2 epochs of 3 equal
#   batches the step compiles once, the loss goes down, and no donated buffer is read again
# gap: exemption-vs-JAX
# added: stand-ins for what is not installed or not in this file, in place of `import aim`,
#   `import beartype`, `import tyro`, `import sax.nn` and `import sax.helpers`:
#   beartype.beartype (returns its argument), aim.Run (not reached: track=False), and a
#   namespace `sax` holding sax/nn.py at the same commit from ReluSAE on (ReluSAE,
#   ReparamInvariantReluSAE; the jumprelu/heaviside helpers before them are left out) and
#   sax/helpers.py's DummyAimRun and save (save writes into a temporary folder);
#   jaxtyping.jaxtyped replaced by a stand-in that returns its argument (jaxtyping 0.3.11's
#   raises AttributeError '__globals__' on the eqx.filter_jit of step, and with beartype
#   absent it would check nothing); the __main__ block, which writes a small activation file
#   to a temporary folder and trains on it instead of main(tyro.cli(Args)).
"""
Trains a sparse autoencoder (SAE) on activations.

"""

import time
import os.path
import collections.abc
import dataclasses
import logging
import sys

import chex
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax
import types
import typing
from jaxtyping import Array, Float


def jaxtyped(typechecker=None):  # stand-in: jaxtyping 0.3.11's cannot wrap an eqx.filter_jit
    return lambda obj: obj


class beartype:  # stand-in: beartype is not installed
    @staticmethod
    def beartype(obj):
        return obj


class aim:  # stand-in: aim is not installed (not reached with track=False)
    @staticmethod
    def Run(**kwargs):
        raise NotImplementedError


# sax/nn.py at the same commit, from ReluSAE on
@jaxtyped(typechecker=beartype.beartype)
class ReluSAE(eqx.Module):
    w_enc: Float[Array, "d_hidden d_in"]
    b_enc: Float[Array, " d_hidden"]
    w_dec: Float[Array, "d_in d_hidden"]
    b_dec: Float[Array, " d_in"]

    def __init__(self, d_in: int, d_hidden: int, *, key: chex.PRNGKey):
        init_fn = jax.nn.initializers.he_uniform()
        w_dec = init_fn(key, (d_in, d_hidden), jnp.float32)
        # Re-scale each latent vector to have unit norm. w_dec is [n_features, d_model], so we want to take the norm along axis=1 (0-indexed).
        self.w_dec = w_dec / jnp.linalg.norm(w_dec, axis=1, keepdims=True)

        # Initialize w_enc to transpose of w_dec, but do not tie.
        self.w_enc = self.w_dec.T

        # Initialize biases to 0.
        self.b_enc = jnp.zeros((d_hidden,))
        self.b_dec = jnp.zeros((d_in,))

    def __call__(
        self, x: Float[Array, " d_in"]
    ) -> tuple[Float[Array, " d_in"], Float[Array, " d_hidden"]]:
        x = self.w_enc @ x + self.b_enc
        f_x = jax.nn.relu(x)
        x_hat = self.w_dec @ f_x + self.b_dec
        return x_hat, f_x

    @staticmethod
    def loss(
        model: typing.Self, x: Float[Array, "batch d_in"], sparsity_coeff: float
    ) -> Float[Array, ""]:
        x_hat, f_x = jax.vmap(model)(x)

        reconstruct_err = x - x_hat
        reconstruct_loss = jnp.sum(reconstruct_err**2, axis=-1)

        l1 = jnp.linalg.norm(f_x, ord=1, axis=-1)
        sparsity_loss = sparsity_coeff * l1

        return jnp.mean(reconstruct_loss + sparsity_loss)


class ReparamInvariantReluSAE(ReluSAE):
    @staticmethod
    def loss(
        model: typing.Self, x: Float[Array, "batch d_in"], sparsity_coeff: float
    ) -> Float[Array, ""]:
        x_hat, f_x = jax.vmap(model)(x)

        reconstruct_err = x - x_hat
        reconstruct_loss = jnp.sum(reconstruct_err**2, axis=-1)

        # Reparameterization-invariant L1
        # sum_^M f_x_i * ||d_i||2
        ri_l1 = f_x @ jnp.linalg.norm(model.w_dec, axis=0)
        sparsity_loss = sparsity_coeff * ri_l1

        return jnp.mean(reconstruct_loss + sparsity_loss)


class DummyAimRun:  # sax/helpers.py
    def __init__(self, *args, **kwargs):
        self.hash = "dummy-run-hash"

    def track(self, metrics: dict[str, object], step: int):
        pass


def _save(filename, model_kwargs, model):  # sax/helpers.py's save
    import json
    os.makedirs(os.path.dirname(filename), exist_ok=True)
    with open(filename, "wb") as fd:
        kwargs_str = json.dumps(model_kwargs)
        fd.write((kwargs_str + "\n").encode("utf-8"))
        eqx.tree_serialise_leaves(fd, model)


sax = types.SimpleNamespace(
    nn=types.SimpleNamespace(ReluSAE=ReluSAE, ReparamInvariantReluSAE=ReparamInvariantReluSAE),
    helpers=types.SimpleNamespace(
        DummyAimRun=DummyAimRun, save=_save, to_aim_value=lambda v: v),
)

log_format = "[%(asctime)s] [%(levelname)s] [%(name)s] %(message)s"
logging.basicConfig(level=logging.INFO, format=log_format)
logger = logging.getLogger("activations")


@jaxtyped(typechecker=beartype.beartype)
@dataclasses.dataclass(frozen=True)
class Args:
    activations: str = "/fs/scratch/PAS2136/samuelstevens/datasets/sae/hf-hub_imageomics_BioCLIP/activations-local.bin"
    """activations file."""
    d_model: int = 768
    """model dimension."""
    n_layers: int = 12
    """number of model layers."""
    n_activations: int = 491016
    """number of activations"""
    expansion_factor: int = 64
    """how many times larger the SAE's hidden layer should be."""
    sparsity_coeff: float = 1.0
    """how much to upweight loss_sparsity."""

    batch_size: int = 4096
    """batch size."""
    learning_rate: float = 7e-5
    """peak learning rate."""
    beta1: float = 0.9
    beta2: float = 0.999
    n_warmup_steps: int = 1_000
    """number of warmup steps."""
    n_grad_accum_steps: int = 1
    """number of steps to accumulate gradients for. `1` implies no accumulation."""
    grad_clip: float = 0.0
    """maximum gradient norm. 0.0 indicates no maximum."""
    n_epochs: int = 1
    """number of epochs."""
    pre_enc_bias: bool = False
    """whether to subtract b_dec before sae."""

    seed: int = 42
    """random seed."""
    log_every: int = 100
    """how often to log metrics."""
    track: bool = True
    """whether to track metrics using Aim."""
    ckpt_dir: str = os.path.join(".", "checkpoints")
    """where to store model checkpoints."""


@jaxtyped(typechecker=beartype.beartype)
def make_dataloader(
    args: Args, key: chex.PRNGKey
) -> collections.abc.Iterable[Float[Array, "batch d_model"]]:
    shape = (args.n_activations, args.n_layers, args.d_model)
    data = np.memmap(args.activations, dtype=np.float32, mode="r", shape=shape)
    data = data.reshape(args.n_activations * args.n_layers, args.d_model)

    i = jax.random.permutation(key, args.n_activations)
    start = 0
    while True:
        end = min(start + args.batch_size, args.n_activations)
        yield jnp.array(data[i[start:end]])
        start = end
        if start >= args.n_activations:
            break


@jaxtyped(typechecker=beartype.beartype)
@eqx.filter_jit(donate="all")
def step(
    model: eqx.Module,
    optim: optax.GradientTransformation | optax.MultiSteps,
    state: optax.OptState | optax.MultiStepsState,
    batch: Float[Array, "batch d_model"],
    sparsity_coeff: float,
) -> tuple[eqx.Module, optax.OptState | optax.MultiStepsState, Float[Array, ""]]:
    loss, grads = eqx.filter_value_and_grad(model.loss)(model, batch, sparsity_coeff)
    updates, new_state = optim.update(grads, state, model)
    model = eqx.apply_updates(model, updates)
    return model, new_state, loss


@jaxtyped(typechecker=beartype.beartype)
def main(args: Args):
    key = jax.random.key(seed=args.seed)

    # 1. Define the model and optimizers.
    key, subkey = jax.random.split(key)
    model_kwargs = {
        "d_in": args.d_model,
        "d_hidden": args.expansion_factor * args.d_model,
    }
    sae = sax.nn.ReparamInvariantReluSAE(**model_kwargs, key=subkey)
    n_steps = jnp.ceil(
        args.n_activations * args.n_layers * args.n_epochs / args.batch_size
    )
    lr_schedule = optax.schedules.warmup_cosine_decay_schedule(
        0.0, args.learning_rate, args.n_warmup_steps, n_steps // args.n_grad_accum_steps
    )
    optim = optax.adamw(
        learning_rate=lr_schedule, b1=args.beta1, b2=args.beta2, weight_decay=0.0
    )
    if args.grad_clip > 0:
        optim = optax.chain(optim, optax.clip_by_global_norm(args.grad_clip))
    if args.n_grad_accum_steps > 1:
        optim = optax.MultiSteps(optim, every_k_schedule=args.n_grad_accum_steps)

    state = optim.init(eqx.filter(sae, eqx.is_inexact_array))

    if args.track:
        run = aim.Run(experiment="train")
        run["hparams"] = {k: sax.helpers.to_aim_value(v) for k, v in vars(args).items()}
        run["hparams"]["cmd"] = " ".join([sys.executable] + sys.argv)
    else:
        run = sax.helpers.DummyAimRun()

    # 3. Train the model.
    global_step = 0
    start_time = time.time()

    for e in range(args.n_epochs):
        # 2. Make dataloader
        key, subkey = jax.random.split(key)
        dataloader = make_dataloader(args, subkey)

        for batch in dataloader:
            sae, state, loss = step(sae, optim, state, batch, args.sparsity_coeff)
            global_step += 1

            if global_step % args.log_every == 0:
                step_per_sec = global_step / (time.time() - start_time)
                metrics = {
                    "train_loss": loss.item(),
                    "step_per_sec": step_per_sec,
                    "learning_rate": lr_schedule(
                        global_step // args.n_grad_accum_steps
                    ).item(),
                }
                run.track(metrics, step=global_step)
                logger.info(
                    "step: %d, loss: %.5f, step/sec: %.2f",
                    global_step,
                    loss.item(),
                    step_per_sec,
                )

    # 4. Save model.
    sax.helpers.save(os.path.join(args.ckpt_dir, f"{run.hash}.eqx"), model_kwargs, sae)


if __name__ == "__main__":
    import tempfile

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: compiles.append(kw.get("fun_name"))
        if name == "/jax/core/compile/backend_compile_duration" else None)

    losses = []
    _step = step

    def step(*a):  # record the losses the loop computes
        out = _step(*a)
        losses.append(float(out[2]))
        return out

    with tempfile.TemporaryDirectory() as tmp:
        n_activations, n_layers, d_model = 48, 2, 8
        np.random.default_rng(0).standard_normal(
            (n_activations, n_layers, d_model), dtype=np.float32
        ).tofile(os.path.join(tmp, "activations.bin"))
        args = Args(
            activations=os.path.join(tmp, "activations.bin"), d_model=d_model,
            n_layers=n_layers, n_activations=n_activations, expansion_factor=2,
            sparsity_coeff=1e-3, batch_size=16, learning_rate=1e-2, n_warmup_steps=2,
            n_epochs=2, log_every=2, track=False, ckpt_dir=os.path.join(tmp, "ckpt"),
        )
        main(args)
        assert os.path.exists(os.path.join(tmp, "ckpt", "dummy-run-hash.eqx"))

    print("losses:", losses)
    assert len(losses) == 6
    assert compiles.count("jit(step)") == 1, compiles
    assert losses[-1] < losses[0]
