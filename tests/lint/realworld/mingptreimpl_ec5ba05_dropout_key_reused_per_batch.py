# source: https://github.com/lukaemon/minGPT-reimplemented/blob/ec5ba059e66c95730421ab98e0764aa88ad54b02/jax_impl/train.py
# observed on jax 0.10.2 CPU: train_epoch passes the same dropout_rng to every train_step of the epoch, so every batch gets the same dropout masks
# gap: flow-sensitive
# (the notebook jax_demo.ipynb at this commit calls `rng, key = random.split(key); state = train_epoch(state, train_loader, cfg, rng, e)` once per epoch)
# (added: Config from jax_impl/config.py and GPT from jax_impl/model.py at the same commit, with the ml_collections ConfigDict
#  annotation replaced by Any; jnp.DeviceArray renamed jax.Array; the removed Array.split method spelled jnp.split; prepare_data's SortDataset/torch DataLoader replaced by
#  small numpy batches of the same sort task; a tiny Config (n_layer=1, batch_size=8); the long reference comments dropped)
import math
from functools import partial
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import struct
from flax.training import train_state
from jax import tree_util
from jax.tree_util import tree_map

@struct.dataclass
class Config:
    # model config
    context_window: int  = 64
    n_embd: int = 48
    n_head: int = 3
    n_layer: int = 3
    dropout_prob: float = 0.1


    # data config
    vocab_size: int = 8 # used to init dataset
    sequence_len: int = 6 # used to init dataset
    
    # train config
    batch_size: int  = 64
    learning_rate: float = 5e-4
    n_epoch = 32
    
    # optimizer
    b1 = 0.9
    b2 = 0.95
    weight_decay = 0.1
    grad_norm_clip = 1.0


class Attention(nn.Module):
    '''multihead causal self-attention'''
    cfg: Any

    @nn.compact
    def __call__(self, x, training=True):
        b, t, c = x.shape

        # [q, k, v], each (b,t,n_embd), pool qkv transform as one huge linear transform
        qkv = jnp.split(nn.Dense(
            features=3 * self.cfg.n_embd, # hence 3xn_embd output
            kernel_init=nn.initializers.normal(stddev=0.02) # bias init default zeros
            )(x), 3, axis=-1) # then split
        
        # multi-head split, hc: head channel
        q, k, v = tree_map(
            lambda x: x.reshape(b, t, self.cfg.n_head, c // self.cfg.n_head).transpose((0, 2, 1, 3)),
            qkv,
        ) # (b,h,t,hc)

        att = q @ k.transpose(0, 1, 3, 2) / math.sqrt(c)  # (b,h,t,t)

        # apply causal mask
        mask = jnp.tril(jnp.ones((t, t)))
        att = jnp.where(mask==0, -jnp.inf, att)

        # compute weights
        att = nn.softmax(att, axis=-1)
        att = nn.Dropout(self.cfg.dropout_prob)(att, deterministic=not training)

        # weighted sum
        output = att @ v  # (b,h,t,hc)

        # multihead concat, (b,t,h,hc) -> (b,t,c)
        output = output.transpose((0, 2, 1, 3)).reshape(b, t, c)

        # output dense layer
        output = nn.Dense(  # ref 3
            self.cfg.n_embd, 
            kernel_init=nn.initializers.normal(stddev=0.02 / math.sqrt(2 * self.cfg.n_layer))
            )(output)

        return output


class Block(nn.Module):
    '''encoder block'''
    cfg: Any

    @nn.compact
    def __call__(self, x, training=True):

        # residual link
        output = x + Attention(self.cfg)(nn.LayerNorm()(x), training)

        mlp = nn.Sequential([
            nn.Dense(4 * self.cfg.n_embd, kernel_init=nn.initializers.normal(stddev=0.02)),
            nn.gelu,
            nn.Dense(self.cfg.n_embd, kernel_init=nn.initializers.normal(stddev=0.02 / math.sqrt(2 * self.cfg.n_layer))),  # ref 3
            nn.Dropout(self.cfg.dropout_prob, deterministic=not training),
        ])

        # resi link
        output = output + mlp(nn.LayerNorm()(output))

        return output


class Embedding(nn.Module):
    '''position and token embedding'''
    cfg: Any

    @nn.compact
    def __call__(self, idx, training=True):
        """idx: (b, t), the data is seq of number in this toy problem"""
        b, t = idx.shape

        position_embedding = nn.Embed(
            self.cfg.context_window, 
            self.cfg.n_embd,
            embedding_init=nn.initializers.normal(stddev=0.02)
            )

        # (t,n_embd) > (1,t,n_embd)
        wpe = position_embedding(jnp.arange(t))[None,]

        token_embedding = nn.Embed(
            self.cfg.vocab_size, 
            self.cfg.n_embd,
            embedding_init=nn.initializers.normal(stddev=0.02)
            )
        wte = token_embedding(idx)  # (b, t, n_embd)

        output = nn.Dropout(self.cfg.dropout_prob)(
            wpe + wte, 
            deterministic=not training
        )

        return output


class GPT(nn.Module):
    cfg: Any

    @nn.compact
    def __call__(self, x, training=True):
        x = Embedding(self.cfg)(x, training)

        for _ in range(self.cfg.n_layer):
            x = Block(self.cfg)(x, training)

        x = nn.LayerNorm()(x)

        # output head
        logits = nn.Dense(self.cfg.vocab_size)(x)

        return logits


# raw input, get the sense of -1 paddings
# and the reason for crazy pre normalizing to ignore loss of padding positions
# [0 2 5 3 3 1 0 1 2 3 3]
# [-1 -1 -1 -1 -1  0  1  2  3  3  5]
def loss_fn(logits, labels, ignore_index=-1):  # ref 2, omg, price for jit
    logits = jnp.where(
        (labels == ignore_index)[..., None], -nn.log_softmax(logits), logits
    )
    loss = optax.softmax_cross_entropy_with_integer_labels(logits, labels)  # ref 1

    # batch average loss, torch cross entropy loss default redution is mean as well
    return loss.mean()


# filter = labels != ignore_index  # filter out -1 padding pairs
# labels = labels[filter]
# logits = logits[filter]
# NonConcreteBooleanIndexError: Array boolean indices must be concrete; got ShapedArray(bool[32,11])
# See https://jax.readthedocs.io/en/latest/errors.html#jax.errors.NonConcreteBooleanIndexError

# When I do this jax.lax.stop_gradient(-nn.log_softmax(logits))
# result: epoch 11 - iter:100 | loss:1.877 | acc:0.990
# this is not the right number because cross entropy here is -log(pred_prob)
# check the graph to get a sense: https://www.wolframalpha.com/input?i=-log%28x%29+from+0+to+1
# meaning, at acc 0.99, my loss should be almost 0, not 1.877.
# if I take off the stop_gradient
# result: epoch 11 - iter:100 | loss:0.010 | acc:0.992
# this is within expectation.
# TODO: but why? I did this -logsoftmax as a hack to counter index -1. What's the proper way to handle this?
# maybe pytorch implementation could give me a hint: https://pytorch.org/docs/stable/_modules/torch/nn/modules/loss.html#CrossEntropyLoss


def create_weight_decay_mask(params):  # FIXME: You can do better, this is crazy
    """
    Don't apply weight decay to bias, layernorm and embeddings
    Apply weight decay to the rest of params

    Achieve this in few steps:
    - flatten the param tree, get the structure of the tree
    - traversing param tree to get full name list for each leaf param
    - apply truth value funciton to names to decide whether its lr should be decayed
    - build a tree with param tree structure and the truth value list, this is the mask

    Later, pass the mask to optax optimizer
    https://optax.readthedocs.io/en/latest/api.html#adamw
    """

    def traversal(tree):
        result = []

        def walk(node, buffer):
            if isinstance(node, jax.Array):
                result.append(".".join(buffer))
            else:
                for key in node.keys():
                    walk(node[key], buffer + [key.lower()])

        walk(tree, [])
        return result

    def is_weight_decay(name):
        no_decay = ["bias", "layernorm", "embedding"]

        out = True
        for nono in no_decay:
            out &= nono not in name

        return out

    ps, structure = tree_util.tree_flatten(
        params, is_leaf=lambda node: isinstance(node, jax.Array)
    )

    params_name = traversal(params)
    assert len(ps) == len(params_name), "traversal error, len didn't match"

    flat_mask = list(map(is_weight_decay, params_name))
    mask = tree_util.tree_unflatten(structure, flat_mask)

    return mask


def create_train_state(rng, cfg: Config):
    rng_param, rng_dropout, rng = jax.random.split(rng, 3)
    init_rngs = {"params": rng_param, "dropout": rng_dropout}

    model = GPT(cfg)

    # FIXME: dataset specific hack ... you can do better
    block_size = cfg.sequence_len * 2 - 1
    input_shape = (cfg.batch_size, block_size)
    params = model.init(init_rngs, jnp.zeros(input_shape, jnp.int32))

    weight_decay_mask = create_weight_decay_mask(params)
    optimizer = optax.chain(
        optax.clip(cfg.grad_norm_clip),
        optax.adamw(
            cfg.learning_rate,
            cfg.b1,
            cfg.b2,
            weight_decay=cfg.weight_decay,
            mask=weight_decay_mask,
        ),
    )

    return train_state.TrainState.create(
        apply_fn=model.apply, params=params, tx=optimizer
    )


def compute_loss(params, batch, cfg, dropout_rng):
    x, y = batch
    logits = GPT(cfg).apply(params, x, rngs={"dropout": dropout_rng})
    loss = loss_fn(logits, y, ignore_index=-1)

    return loss, logits


def compute_accuracy(logits, labels):
    pred = jnp.argmax(logits, axis=-1)

    # still need to take care of -1 cas
    acc = (pred == labels).mean(where=labels != -1)

    return acc


@partial(jax.jit, static_argnames="cfg", donate_argnums=(0,)) # 260ms -> 1ms
def train_step(state: train_state.TrainState, batch, cfg: Config, dropout_rng):
    _, labels = batch

    grad_fn = jax.value_and_grad(compute_loss, has_aux=True)
    (loss, logits), grads = grad_fn(state.params, batch, cfg, dropout_rng)

    state = state.apply_gradients(grads=grads)
    metrics = {"loss": loss, "acc": compute_accuracy(logits, labels)}

    return state, metrics


def prepare_data(cfg: Config):  # stand-in: SortDataset + torch DataLoader replaced by numpy batches
    rng = np.random.default_rng(0)

    def loader(n_batches):
        batches = []
        for _ in range(n_batches):
            inp = rng.integers(cfg.vocab_size, size=(cfg.batch_size, cfg.sequence_len))
            sol = np.sort(inp, axis=1)
            cat = np.concatenate([inp, sol], axis=1)
            x = cat[:, :-1].copy()
            y = cat[:, 1:].copy()
            y[:, : cfg.sequence_len - 1] = -1
            batches.append([x, y])
        return batches

    return loader(3), loader(2)


def train_epoch(state, train_loader, cfg, dropout_rng, epoch):
    loss, acc = [], []

    for batch in train_loader:
        state, metrics = train_step(state, batch, cfg, dropout_rng)  # expect: JIT502

        loss.append(metrics["loss"])
        acc.append(metrics["acc"])

    avg_loss = jnp.array(loss).mean().item()
    avg_acc = jnp.array(acc).mean().item()

    print(f"epoch {epoch:2d} | {avg_loss=:.4f} | {avg_acc=:.4f}")

    return state


def eval(state, eval_loader, cfg):
    batch_acc = []
    
    # with out static_argnames, error: https://jax.readthedocs.io/en/latest/errors.html#jax.errors.ConcretizationTypeError
    infer_fn = jax.jit(GPT(cfg).apply, static_argnames='training')  # 17s to 1.62s
    
    for x, y in eval_loader:
        logits = infer_fn(state.params, x, training=False)
        acc = compute_accuracy(logits, y)
        batch_acc.append(acc)
    
    overall_acc = jnp.array(batch_acc).mean()
    print(f"eval accuracy = {overall_acc:.3f}")


if __name__ == "__main__":
    from jax import random

    cfg = Config(n_embd=16, n_head=2, n_layer=1, batch_size=8)
    key = random.PRNGKey(42)
    train_loader, eval_loader = prepare_data(cfg)
    rng, key = random.split(key)
    state = create_train_state(rng, cfg)

    seen = []
    _jitted = train_step

    def train_step(state, batch, cfg, dropout_rng):
        seen.append(dropout_rng)
        return _jitted(state, batch, cfg, dropout_rng)

    for e in range(2):
        rng, key = random.split(key)
        state = train_epoch(state, train_loader, cfg, rng, e)
    eval(state, eval_loader, cfg)

    per_epoch = [seen[:3], seen[3:]]
    for keys in per_epoch:
        assert all(bool(jnp.all(k == keys[0])) for k in keys), "keys differ"
    # the same key gives the same dropout mask on every batch of an epoch
    x = jnp.asarray(train_loader[0][0])
    out1 = GPT(cfg).apply(state.params, x, rngs={"dropout": per_epoch[0][0]})
    out2 = GPT(cfg).apply(state.params, x, rngs={"dropout": per_epoch[0][1]})
    assert bool(jnp.all(out1 == out2))
    print("train_step got one dropout key for all", len(per_epoch[0]), "batches of an epoch")
    # observed: line 329 every train_step call of an epoch receives the same dropout_rng (identical dropout masks)
