# source: https://github.com/mahakal001/nanogpt-jax/blob/8894f1f72bbadcfb0ae92026d679958eebb9dea4/nanogpt_jax/utils.py (model from nanogpt_jax/nanogpt_jax.py at the same commit, pasted above it)
# observed on jax 0.10.2 CPU: see the observed lines below; PRNG keys are reused in model init, in estimate_loss, and generate() reseeds from a constant on every call
# gap: other
# added: nanogpt_jax/nanogpt_jax.py and nanogpt_jax/utils.py concatenated into one file; `open("data/input.txt")` replaced by a short inline stand-in text; train.py (module-level 5001-step script) replaced by a __main__ block that makes the same calls with its local-testing sizes; generate() called with tok_num=5 instead of 100
# observed: line 166 keys[-index] with index 0 is keys[0]: block 0's weights come from the tok_embedding key (equal to Block(keys[0], ...)), keys[3] is never used
# observed: line 246 split(key[0]) of a key already used for the previous batch and dropout: the dropout key of eval step 0 equals the batch-sampling key of eval step 1
# observed: line 248 KeyReuseError under jax_debug_key_reuse (typed key): key[0] was already consumed by get_batch on the line above
# observed: line 281 generate() reseeds from the constant PRNGKey(517351) on every call: two calls sample identical text
import jax
import jax.numpy as jnp
from jax import random
from jax import jit
from typing import List, Tuple
import optax
import equinox as eqx
from equinox import static_field


class Head(eqx.Module):
    query: jnp.ndarray
    key: jnp.ndarray
    value: jnp.ndarray
    tril: jnp.ndarray = static_field()
    dropout_rate: float = static_field()
    head_size: float = static_field()

    def __init__(self, jax_key, head_size, n_emb, block_size, dropout_rate):
        keys = random.split(jax_key, 3)
        self.query = random.uniform(keys[0], (n_emb, head_size)) * (1 / n_emb**0.5)
        self.key = random.uniform(keys[1], (n_emb, head_size)) * (1 / n_emb**0.5)
        self.value = random.uniform(keys[2], (n_emb, head_size)) * (1 / n_emb**0.5)
        self.tril = jnp.tril(jnp.ones((block_size, block_size)))
        self.dropout_rate = dropout_rate
        self.head_size = head_size

    def __call__(self, x, key, is_training):
        B, T, C = x.shape

        k = x @ self.key  # B, T, H
        q = x @ self.query  # B, T, H
        wei = q @ k.transpose(0, 2, 1) * (self.head_size**-0.5)  # B, T, T
        wei = jnp.where(self.tril[:T, :T] == 0, -jax.numpy.inf, wei)  # B, T, T
        wei = jax.nn.softmax(wei, axis=-1)  # B, T, T
        if is_training:
            wei *= random.bernoulli(key, 1 - self.dropout_rate, wei.shape)  # dropout
            wei /= 1 - self.dropout_rate
        # perform the weighted aggregation of the values
        v = x @ self.value  #  B, T, H
        out = wei @ v  # B, T, H
        return out


class MultiHeadAttention(eqx.Module):
    heads: List[eqx.Module]
    proj: jnp.ndarray
    dropout_rate: float = static_field()

    def __init__(self, jax_key, head_size, n_emb, block_size, num_heads, dropout_rate):
        keys = random.split(jax_key, 1 + num_heads)
        self.heads = [
            Head(keys[index], head_size, n_emb, block_size, dropout_rate)
            for index in range(num_heads)
        ]
        self.proj = random.uniform(keys[-1], (n_emb, n_emb)) * (1 / n_emb**0.5)
        self.dropout_rate = dropout_rate

    def __call__(self, x, key, is_training):
        keys = random.split(key, 1 + len(self.heads))
        out = jnp.concatenate(
            [h(x, k, is_training) for h, k in zip(self.heads, keys)], axis=-1
        )  # B, T, E
        out = out @ self.proj  # B, T, E
        if is_training:
            out *= random.bernoulli(
                keys[-1], 1 - self.dropout_rate, out.shape
            )  # dropout
            out /= 1 - self.dropout_rate
        return out


class FeedForward(eqx.Module):
    l1: jnp.ndarray
    l2: jnp.ndarray
    dropout_rate: float = static_field()

    def __init__(self, jax_key, n_emb, dropout_rate):
        keys = random.split(jax_key, 2)
        self.l1 = random.uniform(keys[0], (n_emb, 4 * n_emb)) * (1 / n_emb**0.5)
        self.l2 = random.uniform(keys[1], (4 * n_emb, n_emb)) * (1 / (4 * n_emb) ** 0.5)
        self.dropout_rate = dropout_rate

    def __call__(self, x, key, is_training):
        x = x @ self.l1
        x = jax.nn.relu(x)
        x = x @ self.l2
        if is_training:
            x *= random.bernoulli(key, 1 - self.dropout_rate, x.shape)  # dropout
            x /= 1 - self.dropout_rate

        return x


class Block(eqx.Module):
    sa: eqx.Module
    ffwd: eqx.Module
    ln1: eqx.Module
    ln2: eqx.Module

    """ Transformer block: communiction followed by computation """

    def __init__(self, jax_key, n_embd, block_size, n_head, dropout_rate):
        # n_embd: embedding dimension, n_head: the number of heads we would like
        keys = random.split(jax_key, 2)
        head_size = n_embd // n_head
        self.sa = MultiHeadAttention(
            keys[0], head_size, n_embd, block_size, n_head, dropout_rate
        )
        self.ffwd = FeedForward(keys[1], n_embd, dropout_rate)
        self.ln1 = LayerNorm(n_embd)
        self.ln2 = LayerNorm(n_embd)

    def __call__(self, x, key, is_training):
        key1, key2 = random.split(key, 2)
        x = x + self.sa(self.ln1(x), key1, is_training)
        x = x + self.ffwd(self.ln2(x), key2, is_training)
        return x


class LayerNorm(eqx.Module):
    gamma: jnp.ndarray
    beta: jnp.ndarray
    eps: float = static_field()

    def __init__(self, dim, eps=1e-5):
        self.gamma = jnp.ones(dim)
        self.beta = jnp.zeros(dim)
        self.eps = eps

    def __call__(self, x):
        xmean = jnp.mean(x, axis=-1, keepdims=True)
        xvar = jnp.var(x, axis=-1, keepdims=True)
        inv = self.gamma * jax.lax.rsqrt(xvar + self.eps)
        return inv * (x - xmean) + self.beta


class NanoGPT(eqx.Module):
    tok_embedding: jnp.ndarray
    pos_embedding: jnp.ndarray
    lm_head: jnp.ndarray
    blocks: List[eqx.Module]
    ln_f: eqx.Module

    def __init__(
        self, jax_key, vocab_size, n_emb, block_size, n_head, n_layer, dropout_rate
    ):
        keys = random.split(jax_key, 3 + n_layer)
        self.tok_embedding = random.uniform(keys[0], (vocab_size, n_emb)) * (
            1 / vocab_size**0.5
        )
        self.pos_embedding = random.uniform(keys[1], (block_size, n_emb)) * (
            1 / block_size**0.5
        )
        self.lm_head = random.uniform(keys[2], (n_emb, vocab_size)) * (1 / n_emb**0.5)
        self.blocks = [
            Block(
                jax_key=keys[-index],  # expect: JIT502
                n_embd=n_emb,
                n_head=n_head,
                block_size=block_size,
                dropout_rate=dropout_rate,
            )
            for index in range(n_layer)
        ]
        self.ln_f = LayerNorm(n_emb)

    def __call__(self, idx, key, is_training):
        B, T = idx.shape
        # idx and targets are both (B,T) tensor of integers

        tok_emb = self.tok_embedding[idx]  # (B, T, C)
        pos_emb = self.pos_embedding[jnp.arange(T)]  # (T, C)
        x = pos_emb + tok_emb  # (B, T, C)

        keys = random.split(key, len(self.blocks))
        for block, k in zip(self.blocks, keys):
            x = block(x, k, is_training)
        x = self.ln_f(x)
        logits = x @ self.lm_head

        return logits

import jax.numpy as jnp
from jax import random
import numpy as np
import equinox as eqx
from tqdm import tqdm
import jax

text = "First Citizen:\nBefore we proceed any further, hear me speak.\nAll:\nSpeak, speak.\n" * 20

# here are all the unique characters that occur in this text
chars = sorted(list(set(text)))
vocab_size = len(chars)

# create a mapping from characters to integers
stoi = {ch: i for i, ch in enumerate(chars)}
itos = {i: ch for i, ch in enumerate(chars)}
encode = lambda s: [
    stoi[c] for c in s
]  # encoder: take a string, output a list of integers
decode = lambda l: "".join([itos[i] for i in l])

data = jnp.asarray(encode(text), dtype=jnp.float32)
n = int(0.9 * len(data))
train_data = data[:n]
val_data = data[n:]


def get_batch(split, key, batch_size, block_size):
    # generate a small batch
    data = train_data if split == "train" else val_data
    ix = random.randint(key, (batch_size,), 0, len(data) - block_size)
    x = jnp.stack([data[i : i + block_size] for i in ix], axis=0, dtype=jnp.int16)
    y = jnp.stack([data[i + 1 : i + block_size + 1] for i in ix], dtype=jnp.int16)
    return x, y


def jcross_entropy(logits, targets):
    n = len(targets)
    logits_maxes = logits.max(1, keepdims=True)
    norm_logits = logits - logits_maxes  # subtract max for numerical stability
    counts = jnp.exp(norm_logits)
    counts_sum = counts.sum(axis=1, keepdims=True)
    counts_sum_inv = counts_sum**-1
    probs = counts * counts_sum_inv
    logprobs = jnp.log(probs)
    loss = -logprobs[jnp.arange(n), targets].mean()
    return loss


def estimate_loss(model, key, batch_size, block_size, eval_iters):
    out = {}
    for split in ["train", "val"]:
        losses = np.zeros(eval_iters)
        for k in range(eval_iters):
            key = random.split(key[0])  # expect: JIT502
            X, Y = get_batch(split, key[0], batch_size, block_size)
            losses[k] = eval_loss_fn(model, key[0], X, Y, is_training=True)  # expect: JIT502
        out[split] = losses.mean()
    return out


def eval_loss_fn(model, key, inp, targets, is_training):
    logits = model(inp, key, is_training)
    B, T, C = logits.shape
    logits = jnp.reshape(logits, (B * T, C))
    targets = jnp.reshape(targets, (B * T))
    loss = jcross_entropy(logits, targets)
    return loss


@eqx.filter_value_and_grad
def loss_fn(model, key, inp, targets, is_training):
    logits = model(inp, key, is_training)
    B, T, C = logits.shape
    logits = jnp.reshape(logits, (B * T, C))
    targets = jnp.reshape(targets, (B * T))
    loss = jcross_entropy(logits, targets)
    return loss


@eqx.filter_jit()
def train_step(model, key, inp, targets, optim, optim_state, is_training):
    loss, grads = loss_fn(model, key, inp, targets, is_training)
    updates, optim_state = optim.update(grads, optim_state)
    model = eqx.apply_updates(model, updates)
    return model, optim_state, loss


def generate(model, block_size, vocab_size, idx, tok_num):
    train_key = random.PRNGKey(517351)  # expect: JIT502
    train_key = random.split(train_key, 1)
    source = jnp.arange(vocab_size)
    # idx is (B,T) array of indices in the current context

    for index in tqdm(range(tok_num)):
        train_key = random.split(train_key[0], 2)
        # crop idx to the last block_size tokens
        idx_cond = idx[:, -block_size:]
        logits = model(idx_cond, train_key[0], is_training=False)
        logits = logits[:, -1, :]  # (B,C)
        probs = jax.nn.softmax(logits, axis=-1)
        # sample from the distribution
        idx_next = jnp.asarray(
            random.choice(train_key[1], a=source, p=probs[0])
        ).reshape(1, 1)
        # add samples index to the running sequence
        idx = jnp.concatenate((idx, idx_next), axis=1)
    return idx


if __name__ == "__main__":
    import optax
    batch_size, block_size, n_emb, n_head, n_layer, dropout_rate = 8, 16, 36, 1, 1, 0.2
    jax_key = random.PRNGKey(10061)
    model = NanoGPT(
        jax_key, vocab_size, n_emb, block_size, n_head, n_layer, dropout_rate=dropout_rate
    )
    optim = optax.adam(3e-4)
    optim_state = optim.init(model)
    train_key = random.PRNGKey(59131)
    train_key = random.split(train_key, 1)
    train_key = random.split(train_key[0], 2)
    inp, targets = get_batch("train", train_key[0], batch_size, block_size)
    model, optim_state, loss = train_step(
        model, train_key[1], inp, targets, optim, optim_state, is_training=True
    )
    print("loss", loss)

    import traceback
    def reuse_line(fn, *a):
        jax.config.update("jax_debug_key_reuse", True)
        try:
            fn(*a)
        except Exception as e:
            assert type(e).__name__ == "KeyReuseError", e
            tb = traceback.extract_tb(e.__traceback__)
            return [fr.lineno for fr in tb if fr.filename == __file__ and fr.name == fn.__name__][-1]
        finally:
            jax.config.update("jax_debug_key_reuse", False)
        raise SystemExit("no KeyReuseError")

    # block 0 is built from keys[-0] == keys[0], the tok_embedding key; keys[3] is never used
    keys = random.split(jax_key, 3 + n_layer)
    fresh = NanoGPT(jax_key, vocab_size, n_emb, block_size, n_head, n_layer, dropout_rate=dropout_rate)
    b0 = Block(keys[0], n_emb, block_size, n_head, dropout_rate)
    b3 = Block(keys[3], n_emb, block_size, n_head, dropout_rate)
    assert bool(jnp.all(fresh.blocks[0].ffwd.l1 == b0.ffwd.l1))
    assert not bool(jnp.all(fresh.blocks[0].ffwd.l1 == b3.ffwd.l1))
    print("block 0 built from the tok_embedding key keys[0]")

    # estimate_loss: key[0] drives get_batch and then the dropout masks of eval_loss_fn
    ln = reuse_line(estimate_loss, model, random.split(random.key(0), 2), batch_size, block_size, 2)
    print("estimate_loss KeyReuseError at line", ln)
    assert ln == 248
    # ... and on the next iteration key[0] (already used for batch and dropout) is split again:
    # block 0's dropout key at iteration k equals the batch-sampling key at iteration k+1
    seen = {"batch": [], "eval": []}
    _gb, _ev = get_batch, eval_loss_fn
    def get_batch(split, key, *a):  # harness: record keys
        seen["batch"].append(key)
        return _gb(split, key, *a)
    def eval_loss_fn(model, key, *a, **k):  # harness: record keys
        seen["eval"].append(key)
        return _ev(model, key, *a, **k)
    estimate_loss(model, random.split(random.PRNGKey(3), 2), batch_size, block_size, 3)
    get_batch, eval_loss_fn = _gb, _ev
    block0_dropout_key = random.split(seen["eval"][0], n_layer)[0]  # as in NanoGPT.__call__
    assert bool(jnp.all(block0_dropout_key == seen["batch"][1]))
    print("dropout key of eval step 0 == batch key of eval step 1")

    # generate reseeds with PRNGKey(517351) on every call: the same random stream every time it is called
    context = jnp.zeros((1, 1), dtype=jnp.int32)
    g1 = generate(model, block_size, vocab_size, context, tok_num=5)
    g2 = generate(model, block_size, vocab_size, context, tok_num=5)
    assert g1.tolist() == g2.tolist()
    print("two generate() calls sampled identical text:", repr(decode(g1[0].tolist())))
    print("OK")
