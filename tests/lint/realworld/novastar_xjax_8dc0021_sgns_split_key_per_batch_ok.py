# source: https://github.com/novastar53/xjax/blob/8dc0021c7956c68349a4f5ffc70d0be47a24f225/src/xjax/models/jax/_sgns.py
#   ("Tested Skipgram on the Simpsons dataset (#4)": the fix of the key reuse of e8dc22f,
#   novastar_xjax_e8dc22f_sgns_same_key_every_batch.py; squash-merged upstream as
#   stickshift/xjax f33d9ff "Added Skipgram Model (#3)")
# observed on jax 0.10.2 CPU: runs clean: each batch is drawn from a fresh subkey of
#   `rng`, the step jitted once from a partial outside the loop trains on 20 distinct
#   batches, and jnp.ones(pos_logits.size) inside the jitted loss is a static shape.
#   Added: stand-ins for xjax.signals (blinker is not installed) and
#   xjax.tools.default_arg, a random toy corpus of id pairs, and the __main__ block, which
#   wraps _batch to record the batches.
# gap: other
from time import time
from functools import partial
from typing import Any, Mapping, Sequence, Tuple

import logging

import jax
from jax import Array
from jax import numpy as jnp
import optax



# --- stand-ins (added) for xjax.signals (blinker signals) and xjax.tools.default_arg
class _Signal:
    def __init__(self, name):
        self.name = name
        self.received = []

    def send(self, sender, **kwargs):
        self.received.append(kwargs)


train_epoch_started = _Signal("train_epoch_started")
train_epoch_completed = _Signal("train_epoch_completed")


def default_arg(a, default):
    """Shorthand for x = x if x is not None else default."""
    return a if a is not None else default
# --- end of stand-ins

__all__ = [
    "sgns",
    "predict",
    "train"
]


Parameters = Mapping[str, Any]


logger = logging.getLogger(__name__)

class SGNS:

    def __call__(self, params, X):

        pos_idxs, neg_idxs = X

        # first look at pos examples
        pos_idxs = jnp.array(pos_idxs)
        input = params[pos_idxs[:, 0], :, 0]
        output = params[pos_idxs[:, 1], :, 1]
        pos_logits = jnp.sum(input*output, axis=1)

        # then look at neg examples
        neg_idxs = jnp.array(neg_idxs)
        input = params[neg_idxs[:, 0], :, 0]
        output = params[neg_idxs[:, 1], :, 1]
        neg_logits = jnp.sum(input*output, axis=1)

        return pos_logits, neg_logits

def sgns(
        *,
        rng: Array,
        vocab_size: int,
        embedding_size: int,
) -> tuple[SGNS, Parameters]:
    """Create and initialize SGNS model."""

    model = SGNS()
    params = jax.random.normal(rng, (vocab_size, embedding_size, 2))

    return model, params

def train(
        model: SGNS,
        *,
        rng: Array,
        params: Parameters,
        X: Array,
        neg_per_pos: int,
        K: int,
        epochs: int | None = None,
        batch_size: int | None = None,
        learning_rate: float | None = None,
) -> Parameters:
    """Train the SGNS model."""

    epochs = default_arg(epochs, 1)
    batch_size = default_arg(batch_size, 1)
    learning_rate = default_arg(learning_rate, 0.01)

    start_time = time()

    # Set up optimizer 
    optimizer = optax.adam(learning_rate=learning_rate)
    optimizer_state = optimizer.init(params)

    loss_fn = jax.value_and_grad(partial(_loss, model, K))
    step_fn = jax.jit(partial(_step, loss_fn, optimizer))

    num_iter = len(X)//batch_size

    for epoch in range(epochs):
        # Emit signal
        train_epoch_started.send(model, epoch=epoch, elapsed=(time() - start_time))

        # Iterate over batches
        loss = None
        for i in range(num_iter):
            rng, sub_rng = jax.random.split(rng, 2)
            batch = _batch(rng=sub_rng, vocab_size=params.shape[0], batch_size=batch_size, neg_per_pos=neg_per_pos, dataset=X)
            params, optimizer_state, loss = step_fn(optimizer_state, params, batch)
        
        # Emit signal
        train_epoch_completed.send(model, epoch=epoch, loss=loss, elapsed=(time() - start_time))
    
    return params


def _batch(*, rng: Array, vocab_size: int, batch_size: int, neg_per_pos: int, dataset: Sequence) -> Tuple[Sequence]:

  k1, k2 = jax.random.split(rng, 2)

  # Generate positive examples by randomly sampling the dataset
  pos_idxs = jax.random.randint(k1, (batch_size,), minval=0, maxval=len(dataset)-1)

  # Generate negative examples by randomly sampling token-pairs from the vocabulary
  neg_idxs = jax.random.randint(k2, (neg_per_pos*batch_size,2), minval=0, maxval=vocab_size-1) 
  
  return dataset[pos_idxs, :], neg_idxs


def _loss(model, K, params, X_batch) -> float:

    pos_logits, neg_logits = model(params, X_batch)

    # First look at pos samples
    loss = optax.losses.sigmoid_binary_cross_entropy(pos_logits, jnp.ones(pos_logits.size)).mean()

    # Then look at neg samples
    loss += K*optax.losses.sigmoid_binary_cross_entropy(neg_logits, jnp.zeros(neg_logits.size)).mean()

    return loss
  

def _step(loss_fn, optimizer, optimizer_state, params, X_batch):

  loss, grads = loss_fn(params, X_batch)

  # Compute updates
  updates, optimizer_state = optimizer.update(grads, optimizer_state)

  # Update params
  params = optax.apply_updates(params, updates)

  return params, optimizer_state, loss


if __name__ == "__main__":
    # toy corpus (added): (center, context) id pairs of a 50-word vocabulary
    vocab_size = 50
    X = jax.random.randint(jax.random.PRNGKey(42), (200, 2), 0, vocab_size)
    model, params = sgns(rng=jax.random.PRNGKey(0), vocab_size=vocab_size, embedding_size=8)

    batches = []
    _orig_batch = _batch

    def _batch(**kwargs):  # records each batch train() builds (added)
        b = _orig_batch(**kwargs)
        batches.append(b)
        return b

    trained = train(model, rng=jax.random.PRNGKey(1), params=params, X=X,
                    neg_per_pos=2, K=1, epochs=2, batch_size=20)
    assert len(batches) == 20
    assert not all(bool((b[0] == batches[0][0]).all()) for b in batches[1:])
    assert bool(jnp.isfinite(trained).all())
    assert train_epoch_completed.received[-1]["loss"] is not None
