# source: https://github.com/adonath/nanogptx/blob/da30a6aca699187d528f74a9009aa87b09921323/src/train.py
#   (nanogptx, a nanoGPT re-implementation in JAX: the Trainer's evaluation as of commit
#   2c660473 "Add jitted mean loss"; commit 5f0f0b761b12fa36d3bd1f45c4ded17b7b9f749f went back
#   to an unjitted Python loop over the validation loader)
# observed on jax 0.10.2 CPU: estimate_mean_loss is jitted with the validation loader (a
#   generator) as a static argument, so the comprehension that draws n_iter batches from it runs
#   only while tracing; every later evaluation hits the cache and scores the model on the same
#   baked-in batches. Three evaluations of two batches draw 2 validation batches, not 6, and
#   stack_batches runs once.
# gap: other
# added: imports trimmed to what this code uses; stand-ins for the model (a tiny bigram
#   GPT pytree whose __call__ is jitted with static is_training, as the repository's GPT is)
#   and for DatasetLoader (its iter() draws batches the same way from an in-memory token array
#   instead of safetensors shards); Axis from model.py; Trainer.train cut to the training loop
#   and its evaluation (model.flops, the mfu/tok-s figures, wandb logging and checkpoint
#   writing left out, and the unused metadata argument dropped); the __main__ block.
import logging
from collections import namedtuple
from dataclasses import dataclass, field
from enum import Enum
from functools import partial
from itertools import cycle

import jax
import numpy as np
import optax
from jax import numpy as jnp
from jax import tree_util
from tqdm import tqdm

log = logging.getLogger(__file__)


class Axis(int, Enum):
    """Axis order"""

    batch = 0
    sequence = 1
    feature = 2


# fmt: off
@tree_util.register_dataclass
@dataclass
class OptimizerConfig:
    """Optimizer configuration"""

    learning_rate: float = 6e-4  # max learning rate
    max_iters: int = 600000  # total number of training iterations
    weight_decay: float = 1e-1
    beta1: float = 0.9
    beta2: float = 0.95
    grad_clip: float = 1.0  # clip gradients at this value, or disable if == 0.0

    # learning rate decay settings
    decay_lr: bool = True  # whether to decay the learning rate
    warmup_iters: int = 2000  # how many steps to warm up for
    lr_decay_iters: int = 600000  # should be ~= max_iters per Chinchilla
    gradient_accumulation_steps: int = 5 * 8  # used to simulate larger batch sizes
    min_lr: float = 6e-5  # minimum learning rate, should be ~= learning_rate/10 per Chinchilla

    @property
    def optax(self):
        """Generate optax optimizer"""
        lr_scheduler = optax.warmup_cosine_decay_schedule(
            init_value=0.0,
            peak_value=self.learning_rate,
            warmup_steps=self.warmup_iters,
            decay_steps=self.lr_decay_iters,
            end_value=self.min_lr,
        )

        def mask_fn(params):
            """Select 2D parameters for decay"""
            return jax.tree.map(lambda x: x.ndim >= 1, params)

        adamw = optax.inject_hyperparams(optax.adamw)(
            learning_rate=lr_scheduler,
            b1=self.beta1,
            b2=self.beta2,
            weight_decay=self.weight_decay,
            mask=mask_fn,
        )

        return optax.chain(
            optax.clip_by_global_norm(self.grad_clip),
            adamw,
            optax.apply_every(self.gradient_accumulation_steps),
        )
# fmt: on


Batch = namedtuple("Batch", ["x", "y", "idx_shard", "idx_batches"])


def stack_batches(batches):
    """Stack batches"""
    return Batch(
        x=jnp.concatenate([batch.x for batch in batches], axis=Axis.batch),
        y=jnp.concatenate([batch.y for batch in batches], axis=Axis.batch),
        idx_shard=None,
        idx_batches=None,
    )


@tree_util.register_dataclass
@dataclass
class Trainer:
    """Training configuration"""

    optimizer: OptimizerConfig = field(default_factory=OptimizerConfig)
    log_interval: int = 1
    eval_interval: int = 2000
    eval_iters: int = 3
    show_progress: bool = True  # show progress bar

    def train(self, model, data_loader_train, data_loader_validate, rng_key):
        """Train model"""

        log.info(
            f"Using {self.optimizer.gradient_accumulation_steps} gradient accumulation steps."
        )

        def loss_fn(model, batch, rng_key, is_training):
            """Loss function"""
            logits = model(batch.x, rng_key, is_training=is_training)
            loss = optax.softmax_cross_entropy_with_integer_labels(
                logits, batch.y
            ).mean()
            return loss

        @partial(jax.jit, static_argnames=("n_iter", "data_loader"))
        def estimate_mean_loss(model, data_loader, n_iter):
            """Estimate mean loss across multiple iters"""
            batch = stack_batches(
                [batch for _, batch in zip(range(n_iter), data_loader)]  # expect: JIT202
            )
            return loss_fn(
                model, batch, rng_key=jax.random.key(8273), is_training=False
            )

        @partial(jax.jit, donate_argnames=("model", "opt_state"))
        def train_step(model, opt_state, batch, rng):
            """Training step"""
            value, grads = jax.value_and_grad(loss_fn)(
                model, batch, rng, is_training=True
            )
            updates, opt_state = self.optimizer.optax.update(grads, opt_state, model)
            model = optax.apply_updates(model, updates)
            return model, opt_state, value

        data_loader_train = data_loader_train.iter(block_size=model.config.block_size)
        data_loader_validate = data_loader_validate.iter(
            block_size=model.config.block_size
        )

        # Initialize optimizer state
        opt_state = self.optimizer.optax.init(model)

        with tqdm(
            total=self.optimizer.max_iters, disable=not self.show_progress
        ) as pbar:
            for n_iter, batch in zip(
                range(1, self.optimizer.max_iters + 1), data_loader_train
            ):
                rng_key = jax.random.fold_in(rng_key, n_iter)
                model, opt_state, loss_train = jax.block_until_ready(
                    train_step(model, opt_state, batch, rng_key)
                )

                if n_iter % self.eval_interval == 0:
                    loss_val = estimate_mean_loss(
                        model, data_loader_validate, n_iter=self.eval_iters
                    )
                    lr = float(opt_state[1].hyperparams["learning_rate"])
                    pbar.set_postfix_str(
                        f"Loss train: {loss_train.item():.3f}, Loss val: {loss_val.item():.3f}, lr: {lr:.5f}"
                    )

                pbar.update(1)

        return model


# --- stand-ins (not from the repository) ---
@dataclass(frozen=True)
class GPTConfig:
    block_size: int


@tree_util.register_dataclass
@dataclass
class GPT:
    wte: jax.Array

    @property
    def config(self):
        return GPTConfig(block_size=8)

    @partial(jax.jit, static_argnames=("is_training",))
    def __call__(self, idx, rng_key, is_training):
        return jnp.take(self.wte, idx, axis=0) @ self.wte.T


@dataclass
class DatasetLoader:
    data: np.ndarray
    batch_size: int = 4
    seed: int = 8273
    served: list = field(default_factory=list)

    def iter(self, block_size):
        random_state = np.random.default_rng(self.seed)
        for idx_shard in cycle([0]):
            data = self.data
            for _ in range(len(data) // self.batch_size // block_size):
                max_val = len(data) - block_size
                idx_batches = random_state.integers(max_val, size=(self.batch_size,))
                x = jnp.stack([data[i : i + block_size] for i in idx_batches])
                y = jnp.stack([data[i + 1 : i + 1 + block_size] for i in idx_batches])
                self.served.append(idx_batches)
                yield Batch(x=x, y=y, idx_shard=idx_shard, idx_batches=idx_batches)


if __name__ == "__main__":
    tokens = np.random.default_rng(0).integers(0, 32, size=4096).astype(np.int32)
    loader_train = DatasetLoader(tokens[:3072])
    loader_val = DatasetLoader(tokens[3072:], seed=1)

    n_stack = []
    _stack_batches = stack_batches

    def stack_batches(batches):
        n_stack.append(len(batches))
        return _stack_batches(batches)

    trainer = Trainer(
        optimizer=OptimizerConfig(max_iters=3, warmup_iters=1, lr_decay_iters=3, gradient_accumulation_steps=1),
        eval_interval=1,
        eval_iters=2,
        show_progress=False,
    )
    model = GPT(wte=0.02 * jax.random.normal(jax.random.key(0), (32, 16)))
    trainer.train(model, loader_train, loader_val, jax.random.key(1))

    assert len(loader_train.served) == 3
    # observed: line 136 draws validation batches only at the trace: three evaluations of
    #   eval_iters=2 batches take 2 batches from the loader, not 6, and stack them once
    assert len(loader_val.served) == 2
    assert n_stack == [2]
