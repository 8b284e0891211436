# source: https://github.com/aghilanai/jax-course/blob/73934a4540a1887bd0fae851936dd72a1f234644/ep06/solution.ipynb
#   (a JAX course, Episode 6: a GPT-2 style transformer from scratch in pure JAX, with
#   NamedTuple parameters, a jitted training step and autoregressive sampling; all code cells)
# observed on jax 0.10.2 CPU: runs clean. step_fn = jax.jit(lambda ...) is built once, before
#   the loop, and closes over `config`, a NamedTuple of Python ints, so forward's
#   `if n_seq > config.max_ctx` and its loop over params.blocks_l are static; the loop splits
#   the key at every step; init_params hands key_blocks, already split into block_keys, to
#   _layer_norm, which deletes it without drawing from it (no key reuse); float(loss_val)
#   and the sampling loop run outside jit. step_fn compiles once for all its steps.
# gap: exemption-vs-JAX
# added: a stand-in for the downloaded tiny-shakespeare corpus (a short repeated text) and for
#   tiktoken's gpt2 encoding (a byte-level encoder, vocab 256), since neither the network nor
#   tiktoken is available; the __main__ block. Shortened to run in the verifier: N_STEPS 50 -> 10
#   and sample_tokens' n_new 40 -> 4 (eager sampling compiles each op for each new length).
import os
from pathlib import Path
from typing import NamedTuple

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import jax
import jax.numpy as jnp
import jax.random as jr
from jax import Array


class GPTConfig(NamedTuple):
    """GPT-2 Small by default (124M params at vocab 50,257)."""

    vocab_dim: int = 50_257
    max_ctx: int = 1024
    n_layers: int = 12
    n_heads: int = 12
    hidden: int = 768
    mlp_mult: int = 4


def gpt2_small(vocab_dim: int = 50_257) -> GPTConfig:
    """Radford et al. GPT-2 Small: L=12, H=768, 12 heads, ctx=1024."""
    return GPTConfig(vocab_dim=vocab_dim, max_ctx=1024, n_layers=12, n_heads=12, hidden=768, mlp_mult=4)


def demo_config(vocab_dim: int) -> GPTConfig:
    """Small config for notebook demos (fast to init and train)."""
    return GPTConfig(vocab_dim=vocab_dim, max_ctx=128, n_layers=2, n_heads=4, hidden=64, mlp_mult=4)


class LayerNormParams(NamedTuple):
    gamma_h: Array  # (H,)
    beta_h: Array  # (H,)


class LinearParams(NamedTuple):
    w_io: Array  # (I, O)
    b_o: Array  # (O,)


class MultiHeadAttentionParams(NamedTuple):
    proj_q: LinearParams  # (H, H)
    proj_k: LinearParams  # (H, H)
    proj_v: LinearParams  # (H, H)
    proj_o: LinearParams  # (H, H)


class MLPParams(NamedTuple):
    fc_hf: LinearParams  # (H, F)
    fc_fh: LinearParams  # (F, H)


class BlockParams(NamedTuple):
    ln1_h: LayerNormParams
    attn_hh: MultiHeadAttentionParams
    ln2_h: LayerNormParams
    mlp_hh: MLPParams


class TransformerParams(NamedTuple):
    embed_vh: Array  # (V, H) token embeddings — tied to LM head
    pos_embed_sh: Array  # (S, H) position embeddings
    blocks_l: tuple[BlockParams, ...]
    ln_final_h: LayerNormParams


def _linear(key: Array, n_in: int, n_out: int, std: float = 0.02) -> LinearParams:
    w_io = jr.normal(key, (n_in, n_out)) * std
    b_o = jnp.zeros(n_out)
    return LinearParams(w_io=w_io, b_o=b_o)


def linear(x_bsh: Array, params: LinearParams) -> Array:
    return x_bsh @ params.w_io + params.b_o


def _layer_norm(key: Array, hidden: int) -> LayerNormParams:
    del key
    return LayerNormParams(gamma_h=jnp.ones(hidden), beta_h=jnp.zeros(hidden))


def layer_norm(x_bsh: Array, params: LayerNormParams) -> Array:
    mean_h = jnp.mean(x_bsh, axis=-1, keepdims=True)
    var_h = jnp.var(x_bsh, axis=-1, keepdims=True)
    x_hat_bsh = (x_bsh - mean_h) / jnp.sqrt(var_h + 1e-5)
    return params.gamma_h * x_hat_bsh + params.beta_h


def _mha_params(key: Array, hidden: int) -> MultiHeadAttentionParams:
    key_q, key_k, key_v, key_o = jr.split(key, 4)
    return MultiHeadAttentionParams(
        proj_q=_linear(key_q, hidden, hidden),
        proj_k=_linear(key_k, hidden, hidden),
        proj_v=_linear(key_v, hidden, hidden),
        proj_o=_linear(key_o, hidden, hidden),
    )


def causal_mask(n_seq: int) -> Array:
    return jnp.tril(jnp.ones((n_seq, n_seq)))


def mha(
    x_bsh: Array,
    params: MultiHeadAttentionParams,
    *,
    n_heads: int,
    mask_ss: Array,
) -> Array:
    n_batch, n_seq, hidden = x_bsh.shape
    n_head_dim = hidden // n_heads

    q_bsh = linear(x_bsh, params.proj_q)
    k_bsh = linear(x_bsh, params.proj_k)
    v_bsh = linear(x_bsh, params.proj_v)

    def split_heads(z_bsh: Array) -> Array:
        z_bpsh = z_bsh.reshape(n_batch, n_seq, n_heads, n_head_dim)
        return jnp.transpose(z_bpsh, (0, 2, 1, 3))  # (B, P, S, D)

    q_bpsd = split_heads(q_bsh)
    k_bpsd = split_heads(k_bsh)
    v_bpsd = split_heads(v_bsh)

    scores_bpss = (q_bpsd @ jnp.swapaxes(k_bpsd, -2, -1)) / jnp.sqrt(n_head_dim)
    scores_bpss = jnp.where(mask_ss[None, None, :, :] > 0, scores_bpss, -1e10)
    attn_bpss = jax.nn.softmax(scores_bpss, axis=-1)
    out_bpsd = attn_bpss @ v_bpsd

    out_bsh = jnp.transpose(out_bpsd, (0, 2, 1, 3)).reshape(n_batch, n_seq, hidden)
    return linear(out_bsh, params.proj_o)


def _mlp_params(key: Array, hidden: int, mlp_mult: int) -> MLPParams:
    n_ff = mlp_mult * hidden
    key_up, key_down = jr.split(key)
    return MLPParams(
        fc_hf=_linear(key_up, hidden, n_ff),
        fc_fh=_linear(key_down, n_ff, hidden),
    )


def gelu(x: Array) -> Array:
    return 0.5 * x * (1.0 + jnp.tanh(jnp.sqrt(2.0 / jnp.pi) * (x + 0.044715 * x**3)))


def mlp(x_bsh: Array, params: MLPParams) -> Array:
    x_bsh = gelu(linear(x_bsh, params.fc_hf))
    return linear(x_bsh, params.fc_fh)


def _block_params(key: Array, hidden: int, mlp_mult: int) -> BlockParams:
    key_ln1, key_attn, key_ln2, key_mlp = jr.split(key, 4)
    return BlockParams(
        ln1_h=_layer_norm(key_ln1, hidden),
        attn_hh=_mha_params(key_attn, hidden),
        ln2_h=_layer_norm(key_ln2, hidden),
        mlp_hh=_mlp_params(key_mlp, hidden, mlp_mult),
    )


def block(
    x_bsh: Array,
    params: BlockParams,
    *,
    n_heads: int,
    mask_ss: Array,
) -> Array:
    x_bsh = x_bsh + mha(layer_norm(x_bsh, params.ln1_h), params.attn_hh, n_heads=n_heads, mask_ss=mask_ss)
    x_bsh = x_bsh + mlp(layer_norm(x_bsh, params.ln2_h), params.mlp_hh)
    return x_bsh


def init_params(key: Array, config: GPTConfig) -> TransformerParams:
    key_embed, key_pos, key_blocks = jr.split(key, 3)
    block_keys = jr.split(key_blocks, config.n_layers)
    blocks_l = tuple(
        _block_params(k, config.hidden, config.mlp_mult) for k in block_keys
    )
    return TransformerParams(
        embed_vh=jr.normal(key_embed, (config.vocab_dim, config.hidden)) * 0.02,
        pos_embed_sh=jr.normal(key_pos, (config.max_ctx, config.hidden)) * 0.01,
        blocks_l=blocks_l,
        ln_final_h=_layer_norm(key_blocks, config.hidden),
    )


def forward(
    params: TransformerParams,
    tokens_bs: Array,
    *,
    config: GPTConfig,
) -> Array:
    n_batch, n_seq = tokens_bs.shape
    if n_seq > config.max_ctx:
        raise ValueError(f"sequence length {n_seq} exceeds max_ctx {config.max_ctx}")

    pos_s = jnp.arange(n_seq)
    x_bsh = params.embed_vh[tokens_bs] + params.pos_embed_sh[pos_s]
    mask_ss = causal_mask(n_seq)

    for block_params in params.blocks_l:
        x_bsh = block(x_bsh, block_params, n_heads=config.n_heads, mask_ss=mask_ss)

    x_bsh = layer_norm(x_bsh, params.ln_final_h)
    return x_bsh @ params.embed_vh.T


def cross_entropy_loss(logits_bsv: Array, targets_bs: Array) -> Array:
    log_probs_bsv = jax.nn.log_softmax(logits_bsv, axis=-1)
    return -jnp.mean(jnp.take_along_axis(log_probs_bsv, targets_bs[..., None], axis=-1))


def loss(
    params: TransformerParams,
    tokens_bs: Array,
    targets_bs: Array,
    config: GPTConfig,
) -> Array:
    return cross_entropy_loss(forward(params, tokens_bs, config=config), targets_bs)


LEARNING_RATE = 1e-3


def sgd_update(params: TransformerParams, grads: TransformerParams, learning_rate: float = LEARNING_RATE) -> TransformerParams:
    return jax.tree.map(lambda p, g: p - learning_rate * g, params, grads)


def sample_batch(
    key: Array,
    n_batch: int,
    n_seq: int,
    vocab_dim: int,
) -> tuple[Array, Array]:
    tokens_bs1 = jr.randint(key, (n_batch, n_seq + 1), 0, vocab_dim)
    return tokens_bs1[:, :-1], tokens_bs1[:, 1:]


def train_step(
    params: TransformerParams,
    tokens_bs: Array,
    targets_bs: Array,
    config: GPTConfig,
) -> tuple[TransformerParams, Array]:
    loss_val, grads = jax.value_and_grad(loss)(params, tokens_bs, targets_bs, config)
    params = sgd_update(params, grads)
    return params, loss_val


def sample_tokens(
    params: TransformerParams,
    prompt_s: Array,
    *,
    config: GPTConfig,
    n_new: int,
    key: Array,
) -> Array:
    # Accept (S,) prompts; forward expects a batch dimension (B, S).
    if prompt_s.ndim == 1:
        prompt_s = prompt_s[None, :]

    tokens_bs = prompt_s
    for _ in range(n_new):
        # Only the trailing max_ctx tokens fit in the model's context window.
        ctx_bs = tokens_bs[:, -config.max_ctx :]
        logits_bsv = forward(params, ctx_bs, config=config)  # (B, S, V)
        # Last position predicts the token after the current sequence.
        next_logits_bv = logits_bsv[:, -1, :]
        key, subkey = jr.split(key)
        next_id_b = jr.categorical(subkey, next_logits_bv)  # (B,)
        tokens_bs = jnp.concatenate([tokens_bs, next_id_b[:, None]], axis=1)
    return tokens_bs[0]  # drop batch dim — demo uses B=1


# stand-in for the downloaded tiny_shakespeare.txt and tiktoken's "gpt2" encoding
text = ("First Citizen:\nBefore we proceed any further, hear me speak.\n\n"
        "All:\nSpeak, speak.\n\n") * 200


class _ByteEncoding:
    n_vocab = 256

    def encode(self, s):
        return list(s.encode("utf-8"))

    def decode(self, ids):
        return bytes(ids).decode("utf-8", errors="replace")


enc = _ByteEncoding()
corpus_n = jnp.array(enc.encode(text), dtype=jnp.int32)
print(f"corpus: {len(text):,} chars → {corpus_n.shape[0]:,} tokens")

config = demo_config(vocab_dim=enc.n_vocab)
key = jr.key(0)
key, key_init = jr.split(key, 2)

params = init_params(key_init, config)
n_params = sum(leaf.size for leaf in jax.tree.leaves(params))
print(f"demo model: {n_params / 1e6:.2f}M params, {len(jax.tree.leaves(params))} pytree leaves")
print(f"gpt2_small reference: {gpt2_small(vocab_dim=enc.n_vocab)}")


def sample_batch_from_corpus(
    key: Array,
    corpus_n: Array,
    n_batch: int,
    n_seq: int,
) -> tuple[Array, Array]:
    n_tokens = corpus_n.shape[0]
    key, subkey = jr.split(key)
    starts_b = jr.randint(subkey, (n_batch,), 0, n_tokens - n_seq - 1)
    offsets_s1 = jnp.arange(n_seq + 1)
    idx_bs1 = starts_b[:, None] + offsets_s1[None, :]
    chunks_bs1 = corpus_n[idx_bs1]
    return chunks_bs1[:, :-1], chunks_bs1[:, 1:]


N_BATCH = 8
N_SEQ = 64
N_STEPS = 10
LOG_EVERY = 10

step_fn = jax.jit(lambda p, x, y: train_step(p, x, y, config))

print(f"training {N_STEPS} steps (batch={N_BATCH}, seq={N_SEQ}) …")
for step in range(N_STEPS):
    key, key_batch = jr.split(key)
    tokens_bs, targets_bs = sample_batch_from_corpus(key_batch, corpus_n, N_BATCH, N_SEQ)
    params, loss_val = step_fn(params, tokens_bs, targets_bs)
    if step == 0 or (step + 1) % LOG_EVERY == 0 or step + 1 == N_STEPS:
        print(f"  step {step + 1:3d}  loss {float(loss_val):.4f}")


prompt_text = "First Citizen:\nBefore we proceed any further, hear me speak."
prompt_s = jnp.array(enc.encode(prompt_text), dtype=jnp.int32)
key, key_gen = jr.split(key)
out_s = sample_tokens(params, prompt_s, config=config, n_new=4, key=key_gen)
print(f"prompt: {prompt_text!r}")
print(f"sample: {enc.decode(out_s.tolist())!r}")


def count_params(config: GPTConfig) -> int:
    v, s, h, l, m = config.vocab_dim, config.max_ctx, config.hidden, config.n_layers, config.mlp_mult
    ff = m * h
    per_block = (
        4 * (h * h + h)  # Q, K, V, O linear
        + (h * ff + ff)  # MLP up (weights + bias)
        + (ff * h + h)  # MLP down
        + 4 * h  # two layer norms (gamma + beta)
    )
    return v * h + s * h + l * per_block + 2 * h  # + final LN


assert count_params(config) == n_params
print(f"count_params matches init: {count_params(config):,}")


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    losses = []
    for step in range(2):
        key, key_batch = jr.split(key)
        tokens_bs, targets_bs = sample_batch_from_corpus(key_batch, corpus_n, N_BATCH, N_SEQ)
        params, loss_val = step_fn(params, tokens_bs, targets_bs)
        losses.append(float(loss_val))
    assert all(jnp.isfinite(jnp.array(losses)))
    assert compiles.count("jit(<lambda>)") == 0, compiles  # compiled once, above
    ln = init_params(jr.key(1), config).ln_final_h
    assert bool((ln.gamma_h == 1).all()) and bool((ln.beta_h == 0).all())
    assert out_s.shape[0] == prompt_s.shape[0] + 4
