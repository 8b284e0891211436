# source: https://github.com/VachanVY/gpt.jax/blob/f4f9f8c1dd0131fed347a6370e389eb303fa12fd/model/sample.py
#   (an individual's GPT trained on TinyStories with keras 3 on the JAX backend; the token
#   sampler that generate.py uses, with a jitted get_logits (self static) and a jitted
#   categorical sampler)
# observed on jax 0.10.2 CPU: generate samples each token from `key` and then splits that
#   same key to make the next one, so every draw is tied to the key that follows it: the
#   first random bits a draw takes from key t are the XOR of the two words of key t+1
#   (threefry is partitionable on 0.10.2). topK's `if jnp.where(k==1, True, False):` runs eagerly on a
#   Python int and is fine.
#   Added: a stand-in for `import keras as nn` (only the annotation nn.Model is used); a
#   stand-in model with keras's stateless_call signature (an embedding lookup of the last
#   tokens) in place of the keras Transformer and its checkpoint; the __main__ block
#   (generate.py's sampling call with small sizes, then the check); the shrug string made raw (same text; Python 3.12 warns on `\(`).
# gap: other

import jax
import types

nn = types.SimpleNamespace(Model=object)  # stand-in for `import keras as nn` (only the annotation nn.Model is used here)
from jax import numpy as jnp, Array, random as jrand
from typing import Sequence
from functools import partial

class GenerateTokens:
    def __init__(self, model:nn.Model, train_state:Sequence[list], maxlen:int, sos:int):
        self.SOS = jnp.array([[sos]])
        self.model = model
        self.train_state = train_state
        self.maxlen = maxlen
    
    @staticmethod
    @jax.jit
    def randCategorical(key:Array, logits:Array):
        idx_next = jrand.categorical(key, logits)[..., None]
        return idx_next # (1, 1)

    @staticmethod
    # TODO(VachanVY): Debug when jitted; does it speed up code?
    # @partial(jax.jit, static_argnums=-1)
    def topK(key:Array, logits:Array, k:Array):
        if jnp.where(k==1, True, False):
            idx_next = logits.argmax(-1, keepdims=True)
            return idx_next
        logits, topK_idx = jax.lax.top_k(logits, k=k)
        idx = jrand.categorical(key, logits)
        idx_next = topK_idx[0][idx][..., None]
        return idx_next # (1, 1)

    @staticmethod
    # TODO(VachanVY): Debug when jitted; does it speed up code?
    # @partial(jax.jit, static_argnums=(-1, -2))
    def topP(key:Array, logits:Array, p:float, k:int|None=None):
        probs = jax.nn.softmax(logits, axis=-1)
        # reverse arg sort of probs
        rev_argsort_prob_idx = jnp.argsort(probs)[:, ::-1]
        # True bools of idx less than p that sum less than p || False bool of least idxs that sum more than p
        less_than_p_bools = (jnp.cumsum(probs.take(rev_argsort_prob_idx), axis=-1) <= p)

        # idx from which to mask
        mask_from_id = less_than_p_bools.sum()+1
        # idxs to mask
        mask_idx = rev_argsort_prob_idx[:, mask_from_id:]
        # -inf masked idx won't be sampled 
        logits = logits.at[:, mask_idx].set(-jnp.inf)

        if k is not None:
            key, _ = jrand.split(key)
            idx_next = GenerateTokens.topK(key, logits, k)
            return idx_next # (1, 1)
        
        idx_next = jrand.categorical(key, logits)[..., None]
        return idx_next # (1, 1)

    @partial(jax.jit, static_argnums=0)
    def get_logits(self, idx_cond:Array, trainable_variables:list, non_trainable_variables:list):
        logits, non_trainable_variables = self.model.stateless_call(
            trainable_variables, non_trainable_variables, idx_cond
        )
        return logits[:, -1, :], non_trainable_variables

    def generate(self, idx:Array, max_tok:int=500, top_k:int|None=None, top_p:float|None=None,  temp:float=0.8, seed:int=42):
        trainable_variables, non_trainable_variables = self.train_state
        if (not top_k) and (not top_p):
            sampleTok = GenerateTokens.randCategorical
        elif (top_k is not None) and (top_p is not None):
            sampleTok = lambda key, logits: GenerateTokens.topP(key, logits, top_p, top_k)
        elif top_k is not None:
            sampleTok = lambda key, logits: GenerateTokens.topK(key, logits, top_k)
        elif top_p is not None:
            sampleTok = lambda key, logits: GenerateTokens.topP(key, logits, top_p)
        else:
            assert False, r"(?_?) ¯\(°_o)/¯"
        
        key = jrand.PRNGKey(seed)
        for _ in range(max_tok):
            idx_cond = idx[:, -self.maxlen:] # (B=1, T)
            logits, non_trainable_variables = self.get_logits(
                idx_cond, trainable_variables, non_trainable_variables
            ) # (B, vocab_size)
            idx_next = sampleTok(key, logits/temp) # (1, 1)
            if idx_next == self.SOS:
                break
            key, _ = jrand.split(key)  # expect: JIT502
            idx = jnp.concatenate((idx, idx_next), axis=-1) # (B=1, T+1)
        return idx[0].tolist()

class _BigramStandIn:
    # stand-in for the keras Transformer: logits are an embedding lookup of each token
    def stateless_call(self, trainable_variables, non_trainable_variables, idx):
        [embedding] = trainable_variables
        return embedding[idx], non_trainable_variables


if __name__ == "__main__":
    VOCAB, SOS = 32, 1
    model = _BigramStandIn()
    train_state = ([jax.random.normal(jrand.PRNGKey(7), (VOCAB, VOCAB))], [])
    sampler = GenerateTokens(model, train_state, 16, sos=SOS)
    start_toks = jnp.array([[SOS, 5, 9]])
    out_toks = sampler.generate(idx=start_toks, max_tok=6, top_p=0.9, seed=4950)
    print(out_toks)

    keys = []
    draw = GenerateTokens.randCategorical

    def recording(key, logits):
        keys.append(key)
        return draw(key, logits)

    GenerateTokens.randCategorical = staticmethod(recording)
    sampler.generate(idx=start_toks, max_tok=4, seed=4950)
    assert len(keys) == 4
    # observed: line 103 splits the key the token was just drawn from: each next key is the
    # split of the last draw's key, and that draw's bits are the XOR of the next key's words
    for k_t, k_next in zip(keys, keys[1:]):
        assert jnp.array_equal(k_next, jrand.split(k_t)[0])
        assert jrand.bits(k_t, (1, VOCAB))[0, 0] == k_next[0] ^ k_next[1]
