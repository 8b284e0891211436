# source: https://github.com/SauravMaheshkar/nanollm/blob/59b55ae400f7e5f31ba270073dbe99b82c1bd706/train.py
#   (an individual's "JAX LLM playground": a flax.nnx decoder-only transformer trained with
#   nnx.jit; train.py, model.py and configs/default.py at commit 59b55ae, "feat: init project")
# observed on jax 0.10.2 CPU: runs clean. train_step is nnx.jit-compiled once and carries
#   the model's dropout Rngs and the optimizer state through nnx's state handling; get_batch
#   is a jax.jit of a local function with batch_size and sequence_length static, drawing
#   offsets from a key split on every iteration and slicing with a vmap of
#   lax.dynamic_slice; the causal mask is built from static shapes.
#   Changed: current flax spellings (`self.blocks = nnx.List([...])`,
#   `nnx.Optimizer(model, tx, wrt=nnx.Param)`, `optimizer.update(model, grads)`).
#   Added: a stand-in get_datasets (a short text in place of karpathy/tiny_shakespeare from
#   HF datasets); the three files joined in one; the __main__ block (small sizes, a
#   temporary workdir in place of main.py's flags).
# gap: exemption-vs-JAX
import dataclasses
import os

import jax
import jax.numpy as jnp
import optax
import orbax.checkpoint as ocp
from absl import logging
from flax import nnx


# ---- configs/default.py ----
@dataclasses.dataclass(unsafe_hash=True)
class Config:
    # batch size for training
    batch_size: int = 128
    # sequence length
    sequence_length: int = 64
    # number of epochs for training
    num_epochs: int = 1
    # learning rate
    learning_rate: float = 1e-3
    # random seed
    seed: int = 42
    # number of iterations
    n_iterations: int = 10_000
    # frequency of updating metrics
    n_freq_train: int = 100
    # dropout rate
    dropout_rate: float = 0.2
    # number of layers
    num_layers: int = 6
    # embedding size
    embed_size: int = 256
    # number of heads
    num_heads: int = 8
    # head size
    head_size: int = 32
    # whether to use weights and biases
    use_wandb: bool = False
    # weights and biases project
    wandb_project: str = "nanollm"
    # weights and biases entity
    wandb_entity: str | None = None

    def replace(self, **kwargs):
        return dataclasses.replace(self, **kwargs)


def get_config():
    """Get the default hyperparameter configuration."""
    config = Config()
    return config


# ---- stand-in for input_pipeline.get_datasets (karpathy/tiny_shakespeare from HF datasets) ----
def get_datasets() -> tuple[jnp.ndarray, jnp.ndarray, int]:
    text = "First Citizen:\nBefore we proceed any further, hear me speak.\n\nAll:\nSpeak, speak.\n" * 20
    vocab = sorted(set(text))
    stoi = {ch: i for i, ch in enumerate(vocab)}
    data = jnp.array([stoi[c] for c in text])
    n = int(0.9 * len(data))
    return data[:n], data[n:], len(vocab)


# ---- model.py ----
class MLP(nnx.Module):
    def __init__(
        self,
        rngs: nnx.Rngs,
        embed_size: int,
        dropout_rate: float,
    ) -> None:
        self.embed_size = embed_size
        self.dropout_rate = dropout_rate

        # ==== Layers ====
        self.input_linear = nnx.Linear(
            in_features=embed_size,
            out_features=4 * embed_size,
            rngs=rngs,
        )
        self.output_linear = nnx.Linear(
            in_features=4 * embed_size,
            out_features=embed_size,
            rngs=rngs,
        )
        self.dropout = nnx.Dropout(dropout_rate, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        x = self.input_linear(x)
        x = nnx.relu(x)
        x = self.dropout(x)
        x = self.output_linear(x)
        return x


class TransformerBlock(nnx.Module):
    def __init__(
        self,
        rngs: nnx.Rngs,
        num_heads: int,
        head_size: int,
        dropout_rate: float,
        embed_size: int,
    ) -> None:
        self.num_heads = num_heads
        self.head_size = head_size
        self.dropout_rate = dropout_rate
        self.embed_size = embed_size

        # ==== Attention Layer ====
        self.attn = nnx.MultiHeadAttention(
            num_heads=self.num_heads,
            in_features=embed_size,
            qkv_features=embed_size,
            out_features=embed_size,
            dropout_rate=self.dropout_rate,
            rngs=rngs,
        )

        # ==== Normalization Layers ====
        self.pre_norm = nnx.LayerNorm(num_features=embed_size, use_bias=False, rngs=rngs)
        self.post_norm = nnx.LayerNorm(num_features=embed_size, use_bias=False, rngs=rngs)

        # ==== MLP Layer ====
        self.mlp = MLP(
            rngs=rngs,
            embed_size=embed_size,
            dropout_rate=dropout_rate,
        )

    def __call__(self, x: jax.Array) -> jax.Array:
        batch_size, seq_len = x.shape[:2]

        # Create causal attention mask
        # Shape: (seq_len, seq_len)
        mask = jnp.tril(jnp.ones((seq_len, seq_len)))
        # Shape: (batch_size, num_heads, seq_len, seq_len)
        mask = jnp.expand_dims(mask, axis=(0, 1))
        mask = jnp.broadcast_to(mask, (batch_size, self.num_heads, seq_len, seq_len))

        x_norm = self.pre_norm(x)
        attn_outputs = self.attn(x_norm, x_norm, mask=mask, decode=False)
        x = x + attn_outputs

        x = self.post_norm(x)
        x = x + self.mlp(x)

        return x


class NanoLLM(nnx.Module):
    def __init__(
        self,
        rngs: nnx.Rngs,
        vocab_size: int,
        num_layers: int = 6,
        num_heads: int = 8,
        head_size: int = 32,
        dropout_rate: float = 0.2,
        embed_size: int = 256,
        sequence_length: int = 64,
    ) -> None:
        self.vocab_size = vocab_size
        self.num_layers = num_layers
        self.num_heads = num_heads
        self.head_size = head_size
        self.dropout_rate = dropout_rate
        self.embed_size = embed_size
        self.sequence_length = sequence_length

        # ==== Embedding Layers ====
        self.token_emb = nnx.Embed(
            num_embeddings=self.vocab_size, features=self.embed_size, rngs=rngs
        )
        self.pos_emb = nnx.Embed(
            num_embeddings=self.sequence_length, features=self.embed_size, rngs=rngs
        )

        # ==== Transformer Blocks ====
        self.blocks = nnx.List([
            TransformerBlock(
                rngs=rngs,
                num_heads=self.num_heads,
                head_size=self.head_size,
                dropout_rate=self.dropout_rate,
                embed_size=self.embed_size,
            )
            for _ in range(self.num_layers)
        ])

        # ==== Output Layer ====
        self.output_layer = nnx.Linear(
            in_features=self.embed_size, out_features=self.vocab_size, rngs=rngs
        )

    def __call__(self, x: jax.Array) -> jax.Array:
        seq_len = x.shape[1]
        positions = jnp.arange(seq_len)

        # ==== Embeddings ====
        position_emb = self.pos_emb(positions)
        token_emb = self.token_emb(x)
        x = token_emb + position_emb

        # ==== Transformer Blocks ====
        for block in self.blocks:
            x = block(x)

        # ==== Output Layer ====
        return self.output_layer(x)

    @property
    def state(self) -> nnx.State:
        """Splits state from the graph and returns it"""
        return nnx.split(self, nnx.Param, ...)[1]

    @property
    def state_dict(self) -> dict[str, jnp.ndarray]:
        """Splits state from the graph and returns it as a dictionary.

        It can be used for serialization with orbax."""
        state = self.state
        pure_dict_state = nnx.to_pure_dict(state)
        return pure_dict_state

    @property
    def num_params(self) -> int:
        return sum(p.size for p in jax.tree.leaves(self.state))

    def save(self, path: str) -> None:
        """Saves the model state to a directory.

        Args:
            path: The directory path to save the model state to.
        """
        state = self.state_dict
        checkpointer = ocp.StandardCheckpointer()
        checkpointer.save(os.path.join(path, "nanogpt-nnx"), state)
        checkpointer.wait_until_finished()

    def load(self, path: str) -> nnx.Module:
        """Loads the model state from a directory.

        Args:
            path: The directory path to load the model state from.
        """
        checkpointer = ocp.StandardCheckpointer()
        restored_pure_dict = checkpointer.restore(path)
        abstract_model = nnx.eval_shape(lambda: self)
        graphdef, abstract_state = nnx.split(abstract_model)
        nnx.replace_by_pure_dict(abstract_state, restored_pure_dict)
        return nnx.merge(graphdef, abstract_state)

    def generate(self):
        """
        TODO(@saurav): Implement method to generate text.
        """
        pass


# ---- train.py ----


def loss_fn(
    model: nnx.Module, batch: tuple[jax.Array, jax.Array]
) -> tuple[float, jax.Array]:
    logits = model(batch[0])
    loss = optax.softmax_cross_entropy_with_integer_labels(
        logits=logits, labels=batch[1]
    ).mean()
    return loss, logits


@nnx.jit
def train_step(
    model: nnx.Module,
    optimizer: nnx.Optimizer,
    metrics: nnx.MultiMetric,
    batch: tuple[jax.Array, jax.Array],
):
    grad_fn = nnx.value_and_grad(loss_fn, has_aux=True)
    (loss, logits), grads = grad_fn(model, batch)
    metrics.update(loss=loss, logits=logits, lables=batch[1])
    optimizer.update(model, grads)


def train_and_evaluate(config: Config, workdir: str) -> None:
    if config.use_wandb:
        import wandb

        wandb.init(
            project=config.wandb_project,
            entity=config.wandb_entity,
            config=dataclasses.asdict(config),
        )

    train_data, _, vocab_size = get_datasets()

    dynamic_slice_vmap = jax.vmap(jax.lax.dynamic_slice, in_axes=(None, 0, None))

    def get_batch_fn(random_key, data, batch_size, sequence_length):
        ix = jax.random.randint(
            random_key,
            shape=(batch_size, 1),
            minval=0,
            maxval=len(data) - sequence_length,
        )
        x = dynamic_slice_vmap(data, ix, (sequence_length,))
        y = dynamic_slice_vmap(data, ix + 1, (sequence_length,))
        return x, y

    get_batch = jax.jit(get_batch_fn, static_argnames=["batch_size", "sequence_length"])

    model = NanoLLM(
        vocab_size=vocab_size,
        num_layers=config.num_layers,
        num_heads=config.num_heads,
        head_size=config.head_size,
        dropout_rate=config.dropout_rate,
        embed_size=config.embed_size,
        sequence_length=config.sequence_length,
        rngs=nnx.Rngs(0),
    )

    logging.info(f"Total number of parameters: {model.num_params:_}")
    if config.use_wandb:
        wandb.summary["num_params"] = model.num_params

    optimizer = nnx.Optimizer(model, optax.adamw(config.learning_rate, nesterov=True), wrt=nnx.Param)
    metrics = nnx.MultiMetric(
        loss=nnx.metrics.Average("loss"),
    )
    rng = jax.random.PRNGKey(config.seed)
    metrics_history = {
        "train_loss": [],
    }

    model.train()
    for _ in range(config.num_epochs):
        for i in range(config.n_iterations):
            rng, subkey = jax.random.split(rng)
            batch = get_batch(
                subkey, train_data, config.batch_size, config.sequence_length
            )
            train_step(model, optimizer, metrics, batch)

            if (i + 1) % config.n_freq_train == 0:
                for metric, value in metrics.compute().items():
                    metrics_history[f"train_{metric}"].append(value)
                metrics.reset()

                # === logging ===
                print(f"Iteration {i + 1}, Loss: {metrics_history['train_loss'][-1]:.4f}")
                if config.use_wandb:
                    wandb.log(
                        {"train_loss": metrics_history["train_loss"][-1]}, step=i + 1
                    )

        model.save(workdir)


if __name__ == "__main__":
    import tempfile

    config = get_config().replace(
        batch_size=4, sequence_length=16, n_iterations=4, n_freq_train=2,
        num_layers=2, embed_size=32, num_heads=4, head_size=8,
    )
    with tempfile.TemporaryDirectory() as workdir:
        train_and_evaluate(config, workdir)
