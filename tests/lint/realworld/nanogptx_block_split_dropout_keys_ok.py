# source: https://github.com/adonath/nanogptx/blob/2d4a9cc029c0fa7f2aa11abbe408d28eaef9bfd7/src/model.py
#   (nanogptx, a nanoGPT re-implementation with JAX dataclass pytrees; the commit "Fix bugs and
#   cleanups in model.py", whose Block splits rng_key into independent subkeys for the attention
#   and MLP dropout and whose MLP no longer splits its key again)
# observed on jax 0.10.2 CPU: runs clean, also with jax_debug_key_reuse on: every key of the
#   jitted GPT.__call__ (is_training and inference static) is consumed once; the per-block
#   rng_key, sub_rng_key = split(rng_key) chain in the Python loop over self.h unrolls at trace
#   time; Dropout's `if is_training` branches on the static flag.
# gap: cross-module
# added: imports trimmed to what these classes use; the stand-in DOT_PRODUCT_ATTENTION = "xla"
#   (the original picks "cudnn" on a CUDA device); the classes are cut to their forward
#   passes (the ArrayInfo/from_config/from_n_features constructors, Embedding.pad_to_multiple_of,
#   and GPT's config/flops/read/write/init methods left out); the __main__ block, which builds a
#   tiny GPT from random arrays and runs it under jit with the key-reuse checker on.
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import partial
from typing import ClassVar, Optional

import jax
from jax import numpy as jnp
from jax.tree_util import register_dataclass

DOT_PRODUCT_ATTENTION = "xla"


class Axis(int, Enum):
    """Axis order"""

    batch = 0
    sequence = 1
    feature = 2


class EmbeddingAxis(int, Enum):
    """Axis order for embeddings"""

    vocab = 0
    embd = 1


@register_dataclass
@dataclass
class Embedding:
    """Embedding layer"""

    weight: jax.Array

    @property
    def vocab_size(self):
        """Vocabulary size"""
        return self.weight.shape[EmbeddingAxis.vocab]

    @property
    def n_embd(self):
        """Number of embeddings"""
        return self.weight.shape[EmbeddingAxis.embd]

    @jax.named_scope("Embedding")
    def __call__(self, x):
        return jnp.take(self.weight, x, axis=EmbeddingAxis.vocab)


@register_dataclass
@dataclass
class LayerNorm:
    """Layer normalization"""

    weight: jax.Array
    bias: Optional[jax.Array] = None
    eps: ClassVar[float] = 1e-5

    @jax.named_scope("LayerNorm")
    def __call__(self, x):
        mean = jnp.mean(x, axis=Axis.feature, keepdims=True)
        var = jnp.var(x, axis=Axis.feature, keepdims=True)

        x = (x - mean) / jnp.sqrt((var + self.eps)) * self.weight

        if self.bias is not None:
            x = x + self.bias

        return x


@register_dataclass
@dataclass
class Dropout:
    """Dropout layer"""

    rate: float = field(default=0.1, metadata=dict(static=True))

    @jax.named_scope("Dropout")
    def __call__(self, x, rng_key, is_training):
        if is_training:
            # taken from https://github.com/patrick-kidger/equinox/blob/main/equinox/nn/_dropout.py#L95C13-L97C45
            q = 1 - jax.lax.stop_gradient(self.rate)
            mask = jax.random.bernoulli(rng_key, q, x.shape)
            return jnp.where(mask, x / q, 0)

        return x


@register_dataclass
@dataclass
class Gelu:
    """Gaussian Error Linear Unit"""

    approximate: bool = field(default=True, metadata=dict(static=True))

    @jax.checkpoint
    @jax.named_scope("Gelu")
    def __call__(self, x):
        return jax.nn.gelu(x, approximate=self.approximate)


@register_dataclass
@dataclass
class Linear:
    """Linear layer"""

    weight: jax.Array
    bias: Optional[jax.Array] = None

    @jax.named_scope("Linear")
    def __call__(self, x):
        x = jnp.matmul(x, self.weight.mT)

        if self.bias is not None:
            x = x + self.bias

        return x


@register_dataclass
@dataclass
class MLP:
    """Multi-layer perceptron"""

    c_fc: Linear
    gelu: Gelu
    c_proj: Linear
    dropout: Dropout

    @jax.named_scope("MLP")
    def __call__(self, x, rng_key, is_training) -> jax.Array:
        x = self.c_fc(x)
        x = self.gelu(x)
        x = self.c_proj(x)

        x = self.dropout(x, rng_key=rng_key, is_training=is_training)
        return x


@register_dataclass
@dataclass
class CausalSelfAttention:
    """Causal self-attention layer"""

    c_attn: Linear
    c_proj: Linear
    resid_dropout: Dropout
    n_head: int = field(metadata=dict(static=True))

    @jax.named_scope("CausalSelfAttention")
    def __call__(self, x, rng_key, is_training):
        query, key, value = jnp.split(self.c_attn(x), 3, axis=Axis.feature)

        shape = (
            x.shape[Axis.batch],
            x.shape[Axis.sequence],
            self.n_head,
            x.shape[Axis.feature] // self.n_head,
        )
        query = jnp.reshape(query, shape)
        key = jnp.reshape(key, shape)
        value = jnp.reshape(value, shape)

        x_dpa = jax.nn.dot_product_attention(
            query=query,
            key=key,
            value=value,
            is_causal=True,
            implementation=DOT_PRODUCT_ATTENTION,
        )

        x = jnp.reshape(x_dpa, x.shape)
        x = self.c_proj(x)
        x = self.resid_dropout(x, rng_key=rng_key, is_training=is_training)
        return x


@register_dataclass
@dataclass
class Block:
    """Self-attention block"""

    ln_1: LayerNorm
    attn: CausalSelfAttention
    ln_2: LayerNorm
    mlp: MLP

    @jax.named_scope("Block")
    def __call__(self, x, rng_key, is_training) -> jax.Array:
        key_attn, key_mlp = jax.random.split(rng_key)
        x = x + self.attn(self.ln_1(x), rng_key=key_attn, is_training=is_training)
        x = x + self.mlp(self.ln_2(x), rng_key=key_mlp, is_training=is_training)
        return x


@register_dataclass
@dataclass
class GPT:
    """GPT Transformer model"""

    wte: Embedding
    wpe: Embedding
    drop: Dropout
    h: list[Block]
    ln_f: LayerNorm

    @property
    def lm_head(self):
        """Weight shared lm head"""
        return Linear(weight=self.wte.weight, bias=None)

    @partial(jax.jit, static_argnames=("is_training", "inference"))
    @jax.named_scope("GPT")
    def __call__(self, idx, rng_key, is_training, inference=False):
        tok_emb = self.wte(idx)
        pos_emb = self.wpe.weight[: idx.shape[Axis.sequence], :]

        rng_key, sub_rng_key = jax.random.split(rng_key)
        x = self.drop(tok_emb + pos_emb, rng_key=sub_rng_key, is_training=is_training)

        for block in self.h:
            rng_key, sub_rng_key = jax.random.split(rng_key)
            x = block(x, rng_key=sub_rng_key, is_training=is_training)

        x = self.ln_f(x)

        if inference:
            return self.lm_head(x[:, [-1], :])

        logits = self.lm_head(x)
        return logits


if __name__ == "__main__":
    vocab_size, block_size, n_embd, n_head, n_layer = 64, 8, 16, 2, 2
    keys = iter(jax.random.split(jax.random.key(0), 16))

    def normal(*shape):
        return 0.02 * jax.random.normal(next(keys), shape)

    def layer_norm():
        return LayerNorm(weight=jnp.ones(n_embd), bias=jnp.zeros(n_embd))

    def block():
        return Block(
            ln_1=layer_norm(),
            attn=CausalSelfAttention(
                c_attn=Linear(normal(3 * n_embd, n_embd), jnp.zeros(3 * n_embd)),
                c_proj=Linear(normal(n_embd, n_embd), jnp.zeros(n_embd)),
                resid_dropout=Dropout(0.1),
                n_head=n_head,
            ),
            ln_2=layer_norm(),
            mlp=MLP(
                c_fc=Linear(normal(4 * n_embd, n_embd), jnp.zeros(4 * n_embd)),
                gelu=Gelu(),
                c_proj=Linear(normal(n_embd, 4 * n_embd), jnp.zeros(n_embd)),
                dropout=Dropout(0.1),
            ),
        )

    model = GPT(
        wte=Embedding(normal(vocab_size, n_embd)),
        wpe=Embedding(normal(block_size, n_embd)),
        drop=Dropout(0.1),
        h=[block() for _ in range(n_layer)],
        ln_f=layer_norm(),
    )
    idx = jnp.arange(2 * block_size).reshape(2, block_size) % vocab_size

    logits = model(idx, jax.random.key(1), is_training=True)
    assert logits.shape == (2, block_size, vocab_size)
    assert model(idx, jax.random.key(1), is_training=False, inference=True).shape == (2, 1, vocab_size)

    jax.config.update("jax_debug_key_reuse", True)
    try:
        logits = model(idx[:, :5], jax.random.key(2), is_training=True)
        assert logits.shape == (2, 5, vocab_size)
    finally:
        jax.config.update("jax_debug_key_reuse", False)
