# source: https://github.com/felixmin/nanoGPT-jax-reduced/blob/da25fab6c20134e4c7ceae945cbb802f95d46014/model.py (commit "port generate" by Cristian Garcia, from his cgarciae/nanoGPT-jax port of nanoGPT; fixed in the next commit 0dd37b8b7803d0de89609ad67f7a46940e91b0bd "implement sampling", which uses jnp.where)
# observed on jax 0.10.2 CPU: jax.errors.NonConcreteBooleanIndexError: Array boolean indices must be concrete; got bool[1,11] at line 167 (top-k masking inside the lax.scan body). Not labelled: two non-JIT slips of the same version, fixed in 0dd37b8 too: categorical() gets probabilities instead of logits, and logits[:, i] reads past the single last-position logit the model returns at inference (JAX clamps the index)
# gap: types
# added: the GPT model and GPT.generate of model.py at that commit (crop_block_size, from_pretrained and configure_optimizers left out);
# a __main__ block with a tiny config that jits a sampler like the one in train.py, here with top_k=5 (the argument nanoGPT's sample.py passes).
import math
from dataclasses import dataclass
from typing import Optional, Tuple

import jax
import jax.numpy as jnp
import flax.linen as nn
import optax
from flax.traverse_util import path_aware_map
from flax.core import freeze

@dataclass
class GPTConfig:
    block_size: int = 1024
    vocab_size: int = 50257
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768
    dropout: float = 0.1


class CausalSelfAttention(nn.Module):
    config: GPTConfig

    def setup(self):
        config = self.config
        assert config.n_embd % config.n_head == 0
        head_size = config.n_embd // config.n_head
        # key, query, value projections for all heads, but in a batch
        self.c_attn = nn.DenseGeneral((config.n_head, 3 * head_size))
        # output projection
        self.c_proj = nn.Dense(config.n_embd)
        # regularization
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
        # causal mask to ensure that attention is only applied to the left in the input sequence
        self.n_head = config.n_head
        self.n_embd = config.n_embd

    def __call__(self, x: jax.Array, *, train: bool) -> jax.Array:
        B, T, C = x.shape # batch size, sequence length, embedding dimensionality (n_embd)

        # calculate query, key, values for all heads in batch and move head forward to be the batch dim
        c_attn = self.c_attn(x) # (B, T, hs, 3 * hs)
        c_attn = c_attn.swapaxes(1, 2) # (B, nh, T, 3 * hs)
        q, k, v = jnp.split(c_attn, 3, axis=-1) # (B, nh, T, hs)

        with jax.ensure_compile_time_eval():
            mask = jnp.tril(jnp.ones((T, T))).reshape((1, 1, T, T))
        
        # causal self-attention; Self-attend: (B, nh, T, hs) x (B, nh, hs, T) -> (B, nh, T, T)
        att = (q @ k.swapaxes(-2, -1)) * (1.0 / jnp.sqrt(k.shape[-1]))
        # att = att.masked_fill(self.bias[:,:,:T,:T] == 0, float('-inf'))
        att = jnp.where(mask == 0, float('-inf'), att)
        att = nn.softmax(att, axis=-1)
        att = self.attn_dropout(att, deterministic=not train)
        y = att @ v # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
        y = y.swapaxes(1, 2).reshape(B, T, C) # re-assemble all head outputs side by side

        # output projection
        y = self.resid_dropout(self.c_proj(y), deterministic=not train)
        return y

class MLP(nn.Module):
    config: GPTConfig

    def setup(self):
        config = self.config
        self.c_fc    = nn.Dense(4 * config.n_embd)
        self.c_proj  = nn.Dense(config.n_embd)
        self.dropout = nn.Dropout(config.dropout)

    def __call__(self, x: jax.Array, *, train: bool) -> jax.Array:
        x = self.c_fc(x)
        x = nn.gelu(x, approximate=True)
        x = self.c_proj(x)
        x = self.dropout(x, deterministic=not train)
        return x

class Block(nn.Module):
    config: GPTConfig

    def setup(self):
        config = self.config
        self.ln_1 = nn.LayerNorm()
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm()
        self.mlp = MLP(config)

    def __call__(self, x: jax.Array, *, train: bool) -> jax.Array:
        x = x + self.attn(self.ln_1(x), train=train)
        x = x + self.mlp(self.ln_2(x), train=train)
        return x



class GPT(nn.Module):
    config: GPTConfig

    def setup(self):
        config = self.config
        assert config.vocab_size is not None
        assert config.block_size is not None

        self.wte = nn.Embed(config.vocab_size, config.n_embd)
        self.wpe = nn.Embed(config.block_size, config.n_embd)
        self.drop = nn.Dropout(config.dropout)
        self.h = [Block(config) for _ in range(config.n_layer)]
        self.ln_f = nn.LayerNorm()

    def __call__(self, idx: jax.Array, *, train: bool, targets: Optional[jax.Array] = None):
        b, t = idx.shape
        assert t <= self.config.block_size, f"Cannot forward sequence of length {t}, block size is only {self.config.block_size}"
        pos = jnp.arange(0, t, dtype=jnp.int32)[None] # shape (1, t)

        # forward the GPT model itself
        tok_emb = self.wte(idx) # token embeddings of shape (b, t, n_embd)
        pos_emb = self.wpe(pos) # position embeddings of shape (1, t, n_embd)
        x = self.drop(tok_emb + pos_emb, deterministic=not train)
        for block in self.h:
            x = block(x, train=train)
        x = self.ln_f(x)

        if targets is not None:
            # if we are given some desired targets also calculate the loss
            logits = self.wte.attend(x)
            # loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
            loss = optax.softmax_cross_entropy_with_integer_labels(
                logits, targets).mean()
        else:
            # inference-time mini-optimization: only forward the lm_head on the very last position
            logits = self.wte.attend(x[:, -1:, :]) # note: using list [-1] to preserve the time dim
            loss = None

        return logits, loss

    def generate(self, key, params, input_tokens, max_new_tokens, temperature=1.0, top_k=None):
        """
        Take a conditioning sequence of indices idx (LongTensor of shape (b,t)) and complete
        the sequence max_new_tokens times, feeding the predictions back into the model each time.
        Most likely you'll want to make sure to be in model.eval() mode of operation for this.
        """
        B, T = input_tokens.shape
        tokens = jnp.zeros((B, T + max_new_tokens), dtype=jnp.int32)
        # tokens[:, :T] = idx
        tokens = tokens.at[:, :T].set(input_tokens)
        keys = jax.random.split(key, max_new_tokens)
        indexes = jnp.arange(T, T + max_new_tokens)

        # tokens index -> tokens None
        def scan_f(tokens, inputs):
            i, key = inputs
            # if the sequence context is growing too long we must crop it at block_size
            # idx_cond = idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]
            # forward the model to get the logits for the index in the sequence
            logits, _ = self.apply({'params': params}, tokens, train=False)
            # pluck the logits at the final step and scale by desired temperature
            logits = logits[:, i, :] / temperature
            # optionally crop the logits to only the top k options
            if top_k is not None:
                v, _ = jax.lax.top_k(logits, min(top_k, logits.shape[-1]))
                logits = logits.at[logits < v[:, -1:]].set(-float('inf'))  # expect: JIT403
            # apply softmax to convert logits to (normalized) probabilities
            probs = nn.softmax(logits, axis=-1)
            # sample from the distribution
            next_token = jax.random.categorical(key, probs, axis=-1)
            # append sampled index to the running sequence and continue
            tokens = tokens.at[:, i].set(next_token)

            return tokens, None

        tokens, _ = jax.lax.scan(scan_f, tokens, (indexes, keys))

        return tokens


if __name__ == "__main__":
    config = GPTConfig(block_size=16, vocab_size=11, n_layer=2, n_head=2, n_embd=8, dropout=0.0)
    model = GPT(config)
    tokens = jnp.array([[1, 2, 3, 4, 5]], dtype=jnp.int32)
    params = model.init(jax.random.PRNGKey(0), tokens, train=False)['params']

    @jax.jit
    def sample(params, key, tokens):
        return model.generate(key, params, tokens, max_new_tokens=10, top_k=5)

    print(sample(params, jax.random.PRNGKey(0), tokens))
