# source: https://github.com/lukaemon/minGPT-reimplemented/blob/717fac6dfa8773a887adfe6394af23a40d560c3b/jax_impl/infer.py
#   (an individual's minGPT re-implementation in JAX/flax; GPT from jax_impl/model.py and
#   Config from jax_impl/config.py at the same commit)
# observed on jax 0.10.2 CPU: generate wraps a new partial of GPT(cfg).apply in jax.jit on
#   every call, so nothing compiled by one call is reused by the next: a second call with the
#   same config, params and prompt compiles the model again for every context length it
#   meets (num_token compilations per call). (Within one call the growing context also
#   changes the input shape each step, which the author found made inference slower than
#   without jit; commit d06243a removed the jit.)
# gap: per-call-recompile
# observed: line 186 a new jitted function per generate call: two calls with identical arguments compile num_token programs each
# Kept: infer.py, model.py and config.py as written (their comment blocks at the end of
#   model.py and config.py left out; the `from jax_impl... import` lines dropped as the
#   three files are one here). Changed: `Dense(...)(x).split(3, axis=-1)` (jax arrays no
#   longer have .split) -> `jnp.split(Dense(...)(x), 3, axis=-1)`. Added: the __main__ block.
from flax import struct

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



import math

import jax.numpy as jnp
from jax.tree_util import tree_map

import flax.linen as nn


class Attention(nn.Module):
    '''multihead causal self-attention'''
    cfg: Config

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
    cfg: Config

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
    cfg: Config

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
    cfg: Config

    @nn.compact
    def __call__(self, x, training=True):
        x = Embedding(self.cfg)(x, training)

        for _ in range(self.cfg.n_layer):
            x = Block(self.cfg)(x, training)

        x = nn.LayerNorm()(x)

        # output head
        logits = nn.Dense(self.cfg.vocab_size)(x)

        return logits



from functools import partial
import jax.numpy as jnp
import jax



def generate(cfg: Config, params, x, num_token):
    """greedy argmax
    x: (b, t)
    num_token: how many new token to generate
    """
    context = x

    infer_fn = jax.jit(partial(GPT(cfg).apply, params, training=False))  # expect: JIT301

    for _ in range(num_token):
        # sliding window when the sequence is longer than context_window
        # context's max shape is (b, context_window)
        context = context[:, -cfg.context_window :]
        logits = infer_fn(context)

        # take the last token's logits, make the prediction, and adjust shape for next cat op
        pred = jnp.argmax(logits[:, -1, :], axis=-1)[..., None]  # (b, 1)

        context = jnp.concatenate([context, pred], axis=1)  # (b, t+1)

    return context


if __name__ == "__main__":
    import jax.random as random

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    cfg = Config()
    params = GPT(cfg).init(random.PRNGKey(0), jnp.zeros((1, cfg.sequence_len), jnp.int32), training=False)
    x = random.randint(random.PRNGKey(1), (1, cfg.sequence_len), 0, maxval=cfg.vocab_size)
    num_token = 4

    n0 = len(compiles)
    out1 = generate(cfg, params, x, num_token)
    n1 = len(compiles)
    out2 = generate(cfg, params, x, num_token)  # same config, params and prompt
    n2 = len(compiles)
    print("compilations: first call", n1 - n0, "second call", n2 - n1)
    assert jnp.array_equal(out1, out2)
    # line 186: the second call compiles the model again for each of the num_token context lengths
    assert n2 - n1 >= num_token, (n1 - n0, n2 - n1)
