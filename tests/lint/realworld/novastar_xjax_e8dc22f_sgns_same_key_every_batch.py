# source: https://github.com/novastar53/xjax/blob/e8dc22f32239622042489c5a57879141fcd9df96/src/xjax/models/jax/_sgns.py
#   ("Added Skipgram with Negative Sampling (#2)", the skip-gram with negative sampling
#   model of a JAX teaching repository; the next commit, 8dc0021 "Tested Skipgram on the
#   Simpsons dataset (#4)", splits the key per batch: see
#   novastar_xjax_8dc0021_sgns_split_key_per_batch_ok.py)
# observed on jax 0.10.2 CPU: train() passes the same `rng` to _batch on every iteration,
#   so each step of every epoch trains on the same positive pairs and the same negative
#   pairs: the model sees one mini-batch over and over. The jitted step itself runs
#   correctly. Added: stand-ins for xjax.signals (blinker is not installed) and
#   xjax.tools.default_arg, a random toy corpus of id pairs, and the __main__ block, which
#   wraps _batch to record the batches of one epoch.
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
            batch = _batch(rng=rng, vocab_size=params.shape[0], batch_size=batch_size, neg_per_pos=neg_per_pos, dataset=X)  # expect: JIT502
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
                    neg_per_pos=2, K=1, epochs=1, batch_size=20)
    assert len(batches) == 10
    # observed: line 126 draws every batch of the epoch from the same `rng`: the ten
    #   "random" positive and negative batches are all the same
    assert all(bool((b[0] == batches[0][0]).all()) and bool((b[1] == batches[0][1]).all())
               for b in batches[1:])
