# source: https://github.com/luffykai/nanogpt-jax/blob/04d41028c2445f371096e26e38b86cb25df0f969/train.py
#   (a user's nanoGPT port to flax; commit "dropout": the model.py of the same commit is
#   inlined above train.py. The next commit jits train_step and sets dropout to 0.0, the
#   validation line stays as it is)
# observed on jax 0.10.2 CPU: `dropout_rng`, already consumed by `m.init`, is passed as the
#   dropout key of every validation loss (the model keeps `training=True`), so each
#   evaluation draws the same dropout masks: two validation losses on one batch with
#   `dropout_rng` are bit-identical while a fresh key gives another value.
#   Added: a stand-in text for data/input.txt, the __main__ block; changed: 1000 training
#   steps to 2 (one validation, at step 0) so that the file runs in a minute.
# gap: other
import math

from flax import linen as nn
import jax
from jax import numpy as jnp


class Attention(nn.Module):
    n_embed: int  # output dim (head size)
    n_head: int
    training: bool = True
    dropout: float = 0.0

    def setup(self):
        self.kqv = nn.Dense(self.n_embed * 3, use_bias=False)
        self.attn_drop = nn.Dropout(rate=self.dropout, deterministic=not self.training)
        self.proj = nn.Dense(self.n_embed)
        self.final_drop = nn.Dropout(rate=self.dropout, deterministic=not self.training)

    def __call__(self, x):
        B, T, C = x.shape # batch size, context len, embedding dim
        # equally divided to 3 parts q k v, on the last axis
        q, k, v = jnp.split(self.kqv(x), 3, axis=2) # each shape: B, T, n_embed
        # multihead: process each n_embed in n_head parallelism
        head_size = self.n_embed // self.n_head
        q = jnp.transpose(
            jnp.reshape(q, (B, T, self.n_head, head_size)),
            axes=[0,2,1,3], # B, n_head, T, head_size
        )
        k = jnp.transpose(
            jnp.reshape(k, (B, T, self.n_head, head_size)),
            axes=[0,2,1,3],
        )
        v = jnp.transpose(
            jnp.reshape(v, (B, T, self.n_head, head_size)),
            axes=[0,2,1,3],
        )

        # B, n_head, T, T
        attn = jnp.matmul(q, jnp.transpose(k, axes=[0,1,3,2])) / math.sqrt(head_size)
        # decoder only, so triangle it
        mask = jnp.tril(jnp.ones_like(attn))
        attn = jnp.where(mask == 0, -jnp.inf, attn) # upper triangle  are all -inf
        attn = jax.nn.softmax(attn)
        attn = self.attn_drop(attn)

        y = jnp.matmul(attn, v) # B, n_head, T, n_embed
        # TODO: do we need contiguous? -> reshape order A F or C?
        y = jnp.reshape(jnp.transpose(y, [0,2,1,3]), (B, T, self.n_embed))
        y = self.final_drop(self.proj(y))

        return y


class MLP(nn.Module):
    h_dim: int
    output_dim: int

    @nn.compact
    def __call__(self, x):
        x = nn.Dense(features=self.h_dim)(x) # TODO: bias? and below too
        x = nn.gelu(x)
        x = nn.Dense(features=self.output_dim)(x)
        # TODO: dropout

        return x

class Block(nn.Module):
    n_embed: int
    bias: bool
    n_head: int
    training: bool = True
    dropout: float = 0.0

    def setup(self):
        self.ln1 = nn.LayerNorm(use_bias=self.bias)
        self.attn = Attention(n_embed=self.n_embed, n_head=self.n_head, training=self.training, dropout=self.dropout)
        self.ln2 = nn.LayerNorm(use_bias=self.bias)
        self.mlp = MLP(h_dim = 4 * self.n_embed, output_dim=self.n_embed)

    def __call__(self, x):
        x = x + self.attn(self.ln1(x))
        x = x + self.mlp(self.ln2(x))
        return x

class NanoGpt(nn.Module):
    vocab_size: int
    n_embed: int # embedding feature size
    block_size: int # context len
    n_layer: int
    n_head: int
    bias: bool = False # bias in linear and layernorm
    training: bool = True
    dropout: float = 0.0

    def setup(self):
        self.token_embedding = nn.Embed(num_embeddings=self.vocab_size, features=self.n_embed)
        self.positional_embedding = nn.Embed(num_embeddings=self.block_size, features=self.n_embed)
        self.blocks = [Block(n_embed=self.n_embed, bias=self.bias, n_head=self.n_head, training=self.training, dropout=self.dropout) for _ in range(self.n_layer)]
        self.ln_f = nn.LayerNorm(use_bias=self.bias)
        self.lm_head = nn.Dense(self.vocab_size, use_bias=self.bias)

    def __call__(self, x):
        B, T = x.shape # batch size, context len
        tok_emb = self.token_embedding(x) # B, T, n_embed
        pos_emb = self.positional_embedding(jnp.arange(T)) # T, n_embed
        x = tok_emb + pos_emb
        for block in self.blocks:
            x = block(x)
        x = self.ln_f(x)
        x = self.lm_head(x) # B, T, vocab_size
        
        return x
    
    def generate(self, key, params, idx, max_new_tokens: int):
        self.training = False
        for _ in range(max_new_tokens):
            key, k = jax.random.split(key)
            logits = self.apply(params, idx)[:,-1,:] # at the last token, B by vocab_size
            next_idx = jax.random.categorical(k, logits)
            idx = jnp.concat([idx, jnp.expand_dims(next_idx, axis=1)], axis=1)
        
        return idx

# ---- train.py ----
from typing import List

from flax.training import train_state
import jax
import jax.numpy as jnp
import optax



# const
rng = jax.random.PRNGKey(123)

# hyperparam
batch_size = 16 # how many independent sequences will we process in parallel?
block_size = 32 # what is the maximum context length for predictions?
n_embed = 64 # head size
n_head = 2
n_layer = 2
learning_rate = 0.001
dropout = 0.1
# =====

# stand-in for data/input.txt (tiny Shakespeare)
text = "First Citizen:\nBefore we proceed any further, hear me speak.\n\nAll:\nSpeak, speak.\n" * 40
chars = sorted(list(set(text)))
vocab_size = len(chars)
stoi = { ch:i for i,ch in enumerate(chars) }
itos = { i:ch for i,ch in enumerate(chars) }

# encoder: take a string, output a list of integers
def encode(s: str) -> List[int]:
    return [stoi[c] for c in s]

# decoder: take a list of integers, output a string
def decode(x: List[int]) -> str:
    return ''.join([itos[i] for i in x]) 

data = jnp.array(encode(text))
print(len(data))
n = int(0.9*len(data)) # first 90% will be train, rest val
train_data = data[:n]
val_data = data[n:]

def get_batch(split: str, k):
    # generate a small batch of data of inputs x and targets y
    data = train_data if split == 'train' else val_data
    maxval = len(data) - block_size
    idx = jax.random.randint(k, shape=(batch_size,), minval=0, maxval=maxval)
    x = jnp.stack([data[i:i+block_size] for i in idx])
    y = jnp.stack([data[i+1:i+block_size+1] for i in idx])
    return x, y

rng, init_rng, dropout_rng, data_rng = jax.random.split(rng, 4)
example_x, example_y = get_batch("train", k=data_rng)
m = NanoGpt(
    vocab_size=vocab_size,
    n_embed=n_embed,
    block_size=block_size,
    n_layer=n_layer,
    n_head=n_head,
    training=True,
    dropout=dropout,
)
params = m.init({"params": init_rng, "dropout": dropout_rng}, example_x)
num_params = sum(x.size for x in jax.tree.leaves(params))
print(f"number of params: {num_params}")

optimizer = optax.adamw(learning_rate=learning_rate)


# TODO: also returns accuracy
def calculate_loss(state: train_state.TrainState, params, batch, rng):
    x, y = batch
    logits = state.apply_fn(params, x, rngs = {"dropout": rng})
    loss = optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
    return loss

# TODO: jit
def train_step(state: train_state.TrainState, batch, drop_rng):
    grad_fn = jax.value_and_grad(
        calculate_loss,
        argnums=1,
    )
    loss, grads = grad_fn(state, state.params, batch, drop_rng)
    state = state.apply_gradients(grads=grads)

    return state, loss

state = train_state.TrainState.create(
    apply_fn=m.apply,
    params=params,
    tx=optimizer,
)
for epoch in range(2):
    rng, data_key, drop_rng = jax.random.split(rng, 3)
    batch = get_batch("train", data_key)
    state, loss = train_step(state, batch, drop_rng)
    if epoch % 100 == 0:
        rng, data_key = jax.random.split(rng, 2)
        batch = get_batch("val", data_key)
        val_loss = calculate_loss(state, state.params, batch, dropout_rng)  # expect: JIT502
        print(f"train loss: {loss}, val loss: {val_loss}")


if __name__ == "__main__":
    # observed: line 237 evaluates with the init-time dropout key: every evaluation gets the same masks
    batch = get_batch("val", jax.random.PRNGKey(7))
    a = calculate_loss(state, state.params, batch, dropout_rng)  # tolerate: JIT502
    b = calculate_loss(state, state.params, batch, dropout_rng)  # tolerate: JIT502
    c = calculate_loss(state, state.params, batch, jax.random.PRNGKey(8))
    assert float(a) == float(b), (a, b)
    assert float(a) != float(c), (a, c)
