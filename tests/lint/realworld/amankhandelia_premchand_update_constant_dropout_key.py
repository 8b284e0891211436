# source: https://github.com/amankhandelia/premchand/blob/c94de849196121e6b95560a2478097e70e280881/train_utils.py
#   (SamachaarGPT, an individual's Hindi GPT in flax linen: the jitted, pmapped training step
#   `update`, the model of mingpt/gpt.py and the training loop of train.py at the same commit)
# observed on jax 0.10.2 CPU: `update` builds its dropout key as `jax.random.PRNGKey(seed)` with
#   the default seed 100 inside the jitted step, so every training step drops the same units:
#   two steps from the same state on the same batch give bit-identical losses, while a
#   different seed gives a different loss (dropout is active).
#   Changed: the pydantic config loaded from config.env -> a SimpleNamespace with small sizes.
#   Added: a stand-in batch list (random NumPy tokens, one device axis) for the DataLoader over the
#   desiai/samachaar dataset and its tokenizer; the __main__ block. Left out: estimate_loss,
#   the mlflow logging, checkpoint saving and the generate call of the loop.
# gap: other
from types import SimpleNamespace
from typing import Any, Optional, Tuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import jax_utils
from flax import linen as nn
from flax.core.scope import FrozenVariableDict
from flax.training.train_state import TrainState
from jax import lax


# ---- mingpt/gpt.py ----
class MultiHeadAttention(nn.Module):
    """multiple heads of self-attention in parallel"""

    num_heads: int
    head_size: int
    n_embd: int
    dropout_rate: float
    block_size: int
    deterministic: Optional[bool] = None

    def setup(self):
        self.key_projection = nn.Dense(self.n_embd, use_bias=False)
        self.query_projection = nn.Dense(self.n_embd, use_bias=False)
        self.value_projection = nn.Dense(self.n_embd, use_bias=False)
        self.dropout = nn.Dropout(rate=self.dropout_rate)
        self.tril = jnp.tril(jnp.ones((self.block_size, self.block_size)))
        self.proj = nn.Dense(self.n_embd, use_bias=True)
        self.dropout_layer = nn.Dropout(rate=self.dropout_rate)

    def _split_heads(self, x):
        return x.reshape(x.shape[:2] + (self.num_heads, self.head_size))

    def _merge_heads(self, x):
        return x.reshape(x.shape[:2] + (self.n_embd,))

    def __call__(self, x, deterministic: Optional[bool] = None):
        deterministic = nn.merge_param("deterministic", self.deterministic, deterministic)
        # input of size (batch, time-step, channels)
        # output of size (batch, time-step, n_embd)
        key = self.key_projection(x)
        query = self.query_projection(x)
        value = self.value_projection(x)

        key = self._split_heads(key)
        query = self._split_heads(query)
        value = self._split_heads(value)

        dropout_rng = None
        if not deterministic and self.dropout_rate > 0.0:
            dropout_rng = self.make_rng("dropout")

        heads_out = nn.dot_product_attention(
            query,
            key,
            value,
            mask=self.tril,
            dropout_rate=self.dropout_rate,
            dropout_rng=dropout_rng,
            deterministic=deterministic,
        )
        heads_out = self._merge_heads(heads_out)
        proj_out = self.proj(heads_out)
        out = self.dropout_layer(proj_out, deterministic=deterministic)
        return out


class FeedForward(nn.Module):
    """a simple linear layer followed by a non-linearity"""

    n_embd: int
    dropout: float
    deterministic: Optional[bool] = None

    def setup(self):
        self.fc1 = nn.Dense(4 * self.n_embd)
        self.fc2 = nn.Dense(self.n_embd)
        self.dropout_layer = nn.Dropout(rate=self.dropout)

    def __call__(self, x, deterministic: Optional[bool] = None):
        deterministic = nn.merge_param("deterministic", self.deterministic, deterministic)
        out = self.fc1(x)
        out = nn.relu(out)
        out = self.fc2(out)
        out = self.dropout_layer(out, deterministic)
        return out


class Block(nn.Module):
    """Transformer block: communication followed by computation"""

    n_embd: int
    n_head: int
    block_size: int
    dropout: float
    deterministic: Optional[bool] = None

    def setup(self):
        head_size = self.n_embd // self.n_head
        self.mha = MultiHeadAttention(
            self.n_head, head_size, self.n_embd, self.dropout, self.block_size, self.deterministic
        )
        self.ffwd = FeedForward(self.n_embd, self.dropout, self.deterministic)
        self.ln1 = nn.LayerNorm()
        self.ln2 = nn.LayerNorm()

    def __call__(self, x, deterministic: Optional[bool] = None):
        deterministic = nn.merge_param("deterministic", self.deterministic, deterministic)
        x = x + self.mha(self.ln1(x))
        x = x + self.ffwd(self.ln2(x))
        return x


class GPTLanguageModel(nn.Module):
    vocab_size: int
    n_embd: int
    block_size: int
    n_layer: int
    n_head: int
    dropout: float
    deterministic: Optional[bool] = None

    def setup(self):
        self.token_embedding_table = nn.Embed(self.vocab_size, self.n_embd)
        self.position_embedding_table = nn.Embed(self.block_size, self.n_embd)
        self.blocks = nn.Sequential(
            [
                Block(self.n_embd, self.n_head, self.block_size, self.dropout, self.deterministic)
                for _ in range(self.n_layer)
            ]
        )
        self.ln_f = nn.LayerNorm(self.n_embd)
        self.lm_head = nn.Dense(self.vocab_size)

    def __call__(self, idx, deterministic: Optional[bool] = None):
        deterministic = nn.merge_param("deterministic", self.deterministic, deterministic)
        B, T = idx.shape

        # idx and targets are both (B,T) tensor of integers
        tok_emb = self.token_embedding_table(idx)  # (B,T,C)
        pos_emb = self.position_embedding_table(jnp.arange(T, dtype=jnp.int32))  # (T,C)
        x = tok_emb + pos_emb  # (B,T,C)
        x = self.blocks(x)  # (B,T,C)
        x = self.ln_f(x)  # (B,T,C)
        logits = self.lm_head(x)  # (B,T,vocab_size)

        return logits


# ---- train_utils.py ----
@jax.jit
def update(state: TrainState, inputs, labels, pad_token_id, seed: int = 100):
    dropout_rng = jax.random.PRNGKey(seed)  # expect: JIT502

    def loss_fn(params, labels):
        logits = state.apply_fn(params, inputs, rngs={"dropout": dropout_rng})
        B, T, C = logits.shape
        labels = labels.reshape(B * T)
        logits = logits.reshape(B * T, C)

        loss = optax.softmax_cross_entropy_with_integer_labels(logits, labels)

        # Create a mask for non-pad tokens
        non_pad_mask = jnp.not_equal(labels, pad_token_id)

        # Apply the mask to the loss values
        masked_loss = loss * non_pad_mask

        # Calculate the mean loss only for non-pad tokens
        mean_loss = jnp.sum(masked_loss) / jnp.sum(non_pad_mask)

        return mean_loss

    val_n_grad = jax.value_and_grad(loss_fn)
    loss, grads = val_n_grad(state.params, labels)
    grads = lax.pmean(grads, axis_name="batch")
    state = state.apply_gradients(grads=grads)

    return loss, state


def get_model_n_params(
    config,
    input_shape: Tuple,
    deterministic: bool = False,
) -> Tuple[GPTLanguageModel, FrozenVariableDict, Any]:
    # prepare rngs
    rng = jax.random.PRNGKey(0)
    params_rng, dropout_rng = jax.random.split(rng)
    rngs = {"params": params_rng, "dropout": dropout_rng}

    # disable dropout when for validation
    deterministic = deterministic

    # create model
    gpt = GPTLanguageModel(
        config.arch.vocab_size,
        config.arch.n_embd,
        config.arch.block_size,
        config.arch.n_layer,
        config.arch.n_head,
        config.arch.dropout,
        deterministic,
    )

    x = jnp.zeros(input_shape, dtype=jnp.int32)
    params = gpt.init(rngs, x)

    return gpt, params, dropout_rng


# ---- train.py (stand-in config and data) ----
config = SimpleNamespace(
    arch=SimpleNamespace(vocab_size=50, n_embd=16, n_head=2, n_layer=1, dropout=0.2, block_size=8),
    training=SimpleNamespace(batch_size=4, epoch_count=1, learning_rate=3e-4, eval_iters=2, eval_interval=1000),
)
pad_token_id = 0
_data_rng = np.random.default_rng(7)
train_dataloader = [
    (
        _data_rng.integers(1, config.arch.vocab_size, (1, 4, config.arch.block_size), dtype=np.int32),
        _data_rng.integers(1, config.arch.vocab_size, (1, 4, config.arch.block_size), dtype=np.int32),
    )
    for _ in range(3)
]

gpt, params, dropout_rng = get_model_n_params(config, (2, config.arch.block_size))
state = TrainState.create(apply_fn=gpt.apply, params=params, tx=optax.adamw(config.training.learning_rate))
state = jax_utils.replicate(state)

p_update = jax.pmap(update, axis_name="batch", static_broadcasted_argnums=(3,))


if __name__ == "__main__":
    state0 = state
    x, y = train_dataloader[0]

    # two training steps from the same state on the same batch: with a fresh dropout key per
    # step the losses would differ; with PRNGKey(100) baked into the step they are identical
    loss_a, _ = p_update(state0, x, y, pad_token_id)
    loss_b, _ = p_update(state0, x, y, pad_token_id)
    assert float(loss_a[0]) == float(loss_b[0]), (loss_a, loss_b)
    # observed: line 169 builds the dropout key from the constant seed 100 in every step: equal losses

    # dropout is active: another seed gives another loss
    p_update_seed = jax.pmap(update, axis_name="batch", static_broadcasted_argnums=(3, 4))
    loss_c, _ = p_update_seed(state0, x, y, pad_token_id, 101)
    assert float(loss_c[0]) != float(loss_a[0]), (loss_a, loss_c)

    # the training loop of train.py: every step uses the same dropout masks
    batch_count = 0
    for epoch in range(config.training.epoch_count):
        for i, (x, y) in enumerate(train_dataloader):
            loss, state = p_update(state, x, y, pad_token_id)
            batch_count += 1
    print("same loss from one state twice:", float(loss_a[0]), float(loss_b[0]), "other seed:", float(loss_c[0]))
