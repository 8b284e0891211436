# source: https://github.com/jlin816/jax-sandbox/blob/3f026d855059571d280a0a09a84e9e0126ace456/finetune_gpt2_jax.py
#   (a researcher's port of a PyTorch GPT-2 fine-tuning script to JAX/flax; HEAD of the repo)
# observed on jax 0.10.2 CPU: train_step splits state.dropout_rng into (dropout_rng,
#   new_dropout_rng) but never stores new_dropout_rng back: apply_gradients keeps the old
#   key, so every step of the driver loop hands train_step the same key and draws the same
#   dropout mask ("otherwise we'll drop out the same units every time!", as its own comment
#   warns). After the loop train_state.dropout_rng is still the key made before it.
# gap: other
# added/replaced: the HF FlaxAutoModelForCausalLM("gpt2") is replaced by `_TinyCausalLM`, a
#   small flax stand-in with the same call signature (params=, train=, dropout_rng=) and a
#   Dropout layer; the tokenizer, wikitext loading/chunking and torch DataLoaders are replaced
#   by lists of random numpy batches of the same keys; dcargs/torch seeding dropped; `main`
#   returns train_state (added) so the __main__ block can inspect it; the __main__ block.
from typing import List, Dict
import types
import optax
import numpy as np
import random
import time
import jax
import flax.linen as nn
from flax.training import train_state
from flax.training.common_utils import onehot
import jax.numpy as jnp

VOCAB = 32


class _TinyLM(nn.Module):  # stand-in for GPT-2
    @nn.compact
    def __call__(self, input_ids, deterministic):
        x = nn.Embed(VOCAB, 16)(input_ids)
        x = nn.Dropout(0.5, deterministic=deterministic)(x)
        return nn.Dense(VOCAB)(x)


class _TinyCausalLM:  # stand-in for FlaxAutoModelForCausalLM.from_pretrained("gpt2")
    def __init__(self, max_length):
        self.module = _TinyLM()
        self.params = self.module.init(
            jax.random.PRNGKey(1), jnp.zeros((1, max_length), jnp.int32), True
        )["params"]

    def __call__(self, input_ids, attention_mask=None, params=None, train=False, dropout_rng=None):
        rngs = {"dropout": dropout_rng} if train else {}
        logits = self.module.apply({"params": params}, input_ids, not train, rngs=rngs)
        return types.SimpleNamespace(logits=logits)


def _batches(n, batch_size, max_length, seed):  # stand-in for the wikitext DataLoaders
    r = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        ids = r.integers(0, VOCAB, (batch_size, max_length))
        out.append({"input_ids": ids, "attention_mask": np.ones_like(ids), "labels": ids.copy()})
    return out


# Extend train state by keeping dropout rng in state
class TrainState(train_state.TrainState):
    dropout_rng: jnp.ndarray

    # TODO: idk what this is for yet, multi-gpu?
#    def replicate(self):
#        return jax_utils.replicate(self).replace(dropout_rng=shard_prng_key(self.dropout_rng))

def main(
    batch_size: int = 16,
    max_length: int = 256,
    num_train_batches: int = 3,
):  
    seed_val = 0
    random.seed(seed_val)
    np.random.seed(seed_val)
    rng = jax.random.PRNGKey(seed_val)
    rng, dropout_rng = jax.random.split(rng)

    model = _TinyCausalLM(max_length)

    train_dataloader = _batches(num_train_batches, batch_size, max_length, 1)
    val_dataloader = _batches(2, batch_size, max_length, 2)

    # Initiaize optimizer.
    optimizer = optax.adamw(
        learning_rate=1e-4,
    )
    optimizer.init(model.params)
    
    # Initialize train state.
    train_state = TrainState.create(
        apply_fn=model.__call__,
        params=model.params,
        tx=optimizer,
        dropout_rng=dropout_rng,
    )
    
    # This could also be calculated within the HF forward pass (with a `labels` arg) but they don't implement it
    # TODO: labels is currently actually a np.ndarray, not a jnp.ndarray
    def loss_fn(logits: jnp.ndarray, labels: jnp.ndarray):
        shift_logits = logits[..., :-1, :]
        shift_labels = labels[..., 1:]
        loss = optax.softmax_cross_entropy(shift_logits, onehot(shift_labels, shift_logits.shape[-1]))
        return loss.mean()

    # Functional style: define how to update state in a single step.
    # TODO: add types (what's torch / jnp.ndarray)
    @jax.jit
    def train_step(state, batch):
        # Note: you need to split the dropout rng for each step, otherwise we'll drop out the same units every time!
        dropout_rng, new_dropout_rng = jax.random.split(state.dropout_rng)
        # Define a function that goes params -> loss that we'll differentiate.
        def compute_loss(params):
            # Remove labels since HF Flax model doesn't use them.
            labels = batch.pop("labels")
            # Call the model with the `apply_fn` kept by TrainState.
            outputs = state.apply_fn(**batch, params=params, train=True, dropout_rng=dropout_rng)
            return loss_fn(outputs.logits, labels)

        grad_fn = jax.value_and_grad(compute_loss)
        loss, grads = grad_fn(state.params)
        state = state.apply_gradients(grads=grads)
        return state, loss

    @jax.jit
    def eval_step(state, batch):
        labels = batch.pop("labels")
        outputs = state.apply_fn(**batch, params=state.params, train=False)
        loss = loss_fn(outputs.logits, labels)
        return loss

    # Train loop.
    total_loss = 0
    best_val = 100
    start = time.time()
    for i, batch in enumerate(train_dataloader):
        train_state, loss = train_step(train_state, batch)  # expect: JIT502
        if i % 100 == 0:
            val_loss = 0
            for batch in val_dataloader:
                # TODO: should I be accumulating the loss here?
                val_loss += eval_step(train_state, batch).item()
            val_loss /= len(val_dataloader)
            if val_loss < best_val:
                best_val = val_loss
            if best_val < .25 * val_loss:
                print("Early stopping.")
                break
            print(f"step {i} | elapsed {(time.time() - start) / 60:.2f}m | loss: {loss.item():.2f} | val: {val_loss:.2f}")
            
    print("Done.")
    return train_state

if __name__ == "__main__":
    final_state = main(batch_size=4, max_length=8, num_train_batches=3)
    _, key_before_loop = jax.random.split(jax.random.PRNGKey(0))
    # observed: line 136 hands train_step the same dropout key at every step: after three
    # steps the state's dropout_rng is still the key made before the loop, so each step
    # split it the same way and drew the same dropout mask
    assert (final_state.dropout_rng == key_before_loop).all()
