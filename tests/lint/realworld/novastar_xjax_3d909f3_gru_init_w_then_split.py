# source: https://github.com/novastar53/xjax/blob/3d909f37e281d982f6a21d3461ccb8eec102035d/src/xjax/models/jax/_gru.py
#   ("Improved the GRU implementation (#5)": the from-scratch GRU language model of a JAX
#   teaching repository; the same init is in its GRU+attention model, _gru_attn.py)
# observed on jax 0.10.2 CPU: gru() draws Wxr with _init_W(rng, ...), whose
#   jax.random.normal consumes `rng`, and then splits that same `rng` for the keys of all
#   the other weight matrices, so Wxr is not drawn from a key independent of theirs;
#   replayed with a typed key under jax_debug_key_reuse, the split raises KeyReuseError.
#   The jitted training step (a partial jitted once, outside the loop) runs correctly.
#   Added: stand-ins for xjax.tools.default_arg and xjax.signals (blinker is not
#   installed), toy token windows, and the __main__ block. Left out: predict and generate.
# gap: other
from typing import List, Any
from functools import partial

from time import time

import jax
import optax
from jax import Array
import jax.numpy as jnp
from jax import random
from jax.nn import log_softmax



# --- stand-ins (added) for xjax.tools.default_arg and xjax.signals (blinker signals)
def default_arg(a, default):
    """Shorthand for x = x if x is not None else default."""
    return a if a is not None else default


class _Signal:
    def __init__(self, name):
        self.name = name
        self.received = []

    def send(self, sender, **kwargs):
        self.received.append(kwargs)


train_epoch_started = _Signal("train_epoch_started")
train_epoch_completed = _Signal("train_epoch_completed")
# --- end of stand-ins


Parameters = List[Array]


__all__ = [
    "gru",
    "train",
    "predict",
    "generate",
    "perplexity",
    "_sample",
]


def _sgm(x):
    return 1 / (1 + jnp.exp(-x))


class GRU:

    # Calculate the forward pass
    def __call__(self, *, params: Parameters, H: Array, X: Array):

        # Extract the parameters
        Wxr, Whr, Wxz, Whz, Wxh, Whh, Why, br, bz, bh, by = params

        # Initialize the output logits
        Y = []

        # Loop over the sequence
        for i in range(X.shape[1]):
            # Select the ith sequence and the entire minibatch
            Xt = X[:, i, :].T  # vocab size x 1 x batch size
            # First calculate the Reset and Update gates
            R = _sgm(jnp.dot(Wxr, Xt) + jnp.dot(Whr, H) + br)
            Z = _sgm(jnp.dot(Wxz, Xt) + jnp.dot(Whz, H) + bz)
            # Then calculate the candidate Hidden State
            Hc = _sgm(jnp.dot(Wxh, Xt) + R * jnp.dot(Whh, H) + bh)
            # Then calculate the updated Hidden State
            H = Z * H + (1 - Z) * Hc

            # Finally, calculate the output logits
            Yt = jnp.dot(Why, H) + by

            # Update the output sequence
            Y.append(Yt)

        # Return the updated Hidden State and the output logits
        return H, jnp.stack(Y)


def _init_W(rng: Array, dim1: int, dim2: int, sigma: float | None = None):

    sigma = default_arg(sigma, 1/jnp.sqrt(dim1))
    #sigma = 0.01

    return jax.random.normal(rng, shape=(dim1, dim2)) * sigma


def _init_b(dim: int, default_init: int | None = None):
    if default_init == None:
        return jnp.zeros((dim, 1))
    return jnp.array([[default_init]*dim]).reshape((dim, 1))


def gru(rng: Array, vocab_size: int, hidden_size: int):

    # Wxr, Whr, Wxz, Whz, Wxh, Whh, Why, br, bz, bh, by

    # Reset Gate
    # Decides how much of the previous hidden state
    # to use to calculate the candidate hidden state
    Wxr = _init_W(rng, hidden_size, vocab_size)

    rng, sub_rng = jax.random.split(rng)  # expect: JIT502
    Whr = _init_W(sub_rng, hidden_size, hidden_size)

    br = _init_b(hidden_size, default_init=1.0)

    # Update Gate
    # Used to calculate a linear combination of
    # the previous and candidate hidden states
    # to obtain the updated hidden state
    rng, sub_rng = jax.random.split(rng)
    Wxz = _init_W(sub_rng, hidden_size, vocab_size)

    rng, sub_rng = jax.random.split(rng)
    Whz = _init_W(sub_rng, hidden_size, hidden_size)

    bz = _init_b(hidden_size)

    # Candidate hidden state
    # Used to calculate the updated hidden state
    # Along with the previous hidden state and the update gate
    rng, sub_rng = jax.random.split(rng)
    Wxh = _init_W(sub_rng, hidden_size, vocab_size)

    rng, sub_rng = jax.random.split(rng)
    Whh = _init_W(sub_rng, hidden_size, hidden_size)

    bh = _init_b(hidden_size)

    # Output Layer
    # Projects the final hidden state to the vocab dimension
    # in order to predict the next token
    rng, sub_rng = jax.random.split(rng)
    Why = _init_W(sub_rng, vocab_size, hidden_size)

    by = _init_b(vocab_size)

    # Initialize model
    gru = GRU()

    return (Wxr, Whr, Wxz, Whz, Wxh, Whh, Why, br, bz, bh, by), gru

def _sample(
    rng: Array, X: List[Array], Y: List[Array], batch_size: int, vocab_size: int
) -> tuple[Array, Array]:

    # Pick a set of random indices from the dataset
    idxs = jax.random.randint(rng, (batch_size,), 0, len(X))

    # Convert to one-hot representation
    x_out = jnp.eye(vocab_size)[X[idxs], :]
    y_out = jnp.eye(vocab_size)[Y[idxs], :]

    return x_out, y_out


def _loss(model: GRU, params: Parameters, H: Array, X_batch: Array, Y_batch: Array):

    _, Y_logits = model(params=params, 
                        H=H, 
                        X=X_batch)

    Y_logits = jnp.transpose(Y_logits, (2, 0, 1))
    loss = optax.losses.softmax_cross_entropy(logits=Y_logits, labels=Y_batch)
    return loss.mean()

def _step(loss_fn, optimizer, max_grad, optimizer_state, params, X_batch, Y_batch):

    hidden_size = params[0].shape[0]
    batch_size = X_batch.shape[0]
    H = jnp.zeros((hidden_size,batch_size))
    loss, grads = loss_fn(params, H, X_batch, Y_batch)
    clipped_grads = tuple(jnp.clip(grad, -max_grad, max_grad) for grad in grads)
    updates, optimizer_state = optimizer.update(clipped_grads, optimizer_state)
    params = optax.apply_updates(params, updates)

    return params, optimizer_state, loss


def train(
    model: GRU,
    *,
    rng: Array,
    params: Parameters,
    X_train: jax.Array,
    Y_train: jax.Array,
    X_valid: jax.Array | None = None,
    Y_valid: jax.Array | None = None,
    vocab_size,
    batch_size: int | None = None,
    num_epochs: int | None = None,
    learning_rate: int | None = None,
    max_grad: int | None = None,
) -> Parameters:

    # get default vaules
    batch_size = default_arg(batch_size, 32)
    num_epochs = default_arg(num_epochs, 10)
    learning_rate = default_arg(learning_rate, 10**-3)
    max_grad = default_arg(max_grad, 1)

    start_time = time()

    # set up the optimizer
    optimizer = optax.adam(learning_rate=learning_rate)
    optimizer_state = optimizer.init(params)

    # set up the loss function
    loss_fn = jax.value_and_grad(partial(_loss, model))
    step_fn = jax.jit(partial(_step, loss_fn, optimizer, max_grad))
    #step_fn = partial(_step, loss_fn, optimizer, max_grad)

    # loop through epochs

    loss = None
    for epoch in range(num_epochs):

        epoch_loss = 0
        num_iter = len(X_train)//batch_size
        for _ in range(num_iter):
            rng, sub_rng = jax.random.split(rng)
            X_batch, Y_batch = _sample(sub_rng, X_train, Y_train, batch_size, vocab_size)
            params, optimizer_state, loss = step_fn(optimizer_state, params, X_batch, Y_batch)
            epoch_loss += loss
        epoch_loss = epoch_loss/num_iter
        # Emit signal
        if epoch % 20 == 0:
            # Calculate validation loss 
            rng, sub_rng = jax.random.split(rng)
            valid_perp=None
            if X_valid is not None and Y_valid is not None:
                valid_perp = perplexity(model, params, vocab_size, X_valid, Y_valid)
            train_epoch_completed.send(
                model, epoch=epoch, train_loss=epoch_loss, valid_perplexity=valid_perp, elapsed=(time() - start_time)
            )

    valid_perp=None
    if X_valid is not None and Y_valid is not None:
        valid_perp = perplexity(model, params, vocab_size, X_valid, Y_valid)
    train_epoch_completed.send(
        model, epoch=epoch, train_loss=epoch_loss, valid_perplexity=valid_perp, elapsed=(time() - start_time)
    )


    
    return params


def perplexity(model, params, vocab_size, X, Y):

    X_onehot = jnp.eye(vocab_size)[X, :]
    Y_onehot = jnp.eye(vocab_size)[Y, :]
    batch_size = X.shape[0]
    hidden_size = params[0].shape[0]
    H = jnp.zeros((hidden_size, batch_size))
    loss = _loss(model, params, H, X_onehot, Y_onehot)

    return 2**loss


if __name__ == "__main__":
    import traceback

    # toy data (added): 64 windows of 8 tokens of a 12-token vocabulary, targets shifted by one
    vocab_size, hidden_size = 12, 16
    seq = jax.random.randint(jax.random.PRNGKey(7), (64 + 9,), 0, vocab_size)
    X_train = jnp.stack([seq[i:i + 8] for i in range(64)])
    Y_train = jnp.stack([seq[i + 1:i + 9] for i in range(64)])

    params, model = gru(jax.random.PRNGKey(0), vocab_size, hidden_size)
    params = train(model, rng=jax.random.PRNGKey(1), params=params, X_train=X_train,
                   Y_train=Y_train, vocab_size=vocab_size, batch_size=16, num_epochs=2)
    assert all(bool(jnp.isfinite(p).all()) for p in params)

    jax.config.update("jax_debug_key_reuse", True)
    try:
        gru(jax.random.key(0), vocab_size, hidden_size)
        raise AssertionError("no error")
    except jax.errors.KeyReuseError as e:
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        # observed: line 119 splits the key that _init_W has just drawn Wxr from
        assert frames[-1].lineno == 119, frames[-1].lineno
    finally:
        jax.config.update("jax_debug_key_reuse", False)
