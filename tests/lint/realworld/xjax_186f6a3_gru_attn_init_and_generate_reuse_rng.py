# source: https://github.com/novastar53/xjax/blob/186f6a3423af9c0f5def21ac05c4eae7b151c63f/src/xjax/models/jax/_gru_attn.py
#   ("Completed one iteration of the experiment comparing regular GRU with GRU+Attn": the
#   GRU language model with dot-product attention over its past hidden states, of an
#   individual's from-scratch JAX teaching repository; its plain GRU, _gru.py, is
#   novastar_xjax_3d909f3_gru_init_w_then_split.py)
# observed on jax 0.10.2 CPU: gru() draws Wxr with _init_W(rng, ...), whose
#   jax.random.normal consumes `rng`, and then splits that same `rng` for the keys of all
#   the other weights; and generate() samples a first token with
#   random.categorical(rng, ...) and then, in its loop, splits that consumed `rng` for the
#   keys of every generated token. Replayed with typed keys under jax_debug_key_reuse, the
#   split in gru() raises KeyReuseError, and so does the first split of generate's loop.
#   The jitted training step (a partial jitted once, outside the loop) runs correctly.
#   Added: stand-ins for xjax.tools.default_arg and xjax.signals (blinker is not
#   installed), toy token windows, and the __main__ block.
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

class BasicDotProdAttention:
    """
    A basic non-parameterized dot-product self-attention layer 
    for time sequences
    
    inputs: 
    """

    def __call__(self, query: Array, keys: Array):
        
        query # (batch_size, hidden_dim)
        keys # (batch_size, timesteps, hidden_dim)
        d_k = keys.shape[2]

        query = jnp.expand_dims(query, axis=1)
        scores = jnp.sum(query * keys, axis=2) / jnp.sqrt(d_k) # (batch_size, timesteps)
        attn_weights = jax.nn.softmax(scores, axis=1) # (batch_size, timesteps)
        attn_weights = jnp.expand_dims(attn_weights, axis=2) # (batch_size, timesteps, 1)
        weighted_keys = jnp.sum(keys * attn_weights, axis=1) # (batch_size, hidden_dim) 

        return weighted_keys # (batch_size, hidden_dim)
        

class GRU:

    # Calculate the forward pass
    def __call__(self, *, params: Parameters, H: Array, X: Array):
                
        # Extract the parameters
        Wxr, Whr, Wxz, Whz, Wxh, Whh, Why, br, bz, bh, by = params
        # Initialize the attention layer
        attn = BasicDotProdAttention()
        # Initialize the output logits
        Y = jnp.empty_like(X)

        # Loop over the sequence
        for i in range(X.shape[1]):
            # Then retrieve the current input token
            Xt = X[:, i, :]  # (batch_size x vocab_size)
            # Then retrieve the previous hidden state
            Ht = H[:, -1, :]  # (batch_size x hidden_size)
            # Then calculate the Reset and Update gates
            R = _sgm(jnp.dot(Xt, Wxr) + jnp.dot(Ht, Whr) + br) # (batch_size x hidden_size)
            Z = _sgm(jnp.dot(Xt, Wxz) + jnp.dot(Ht, Whz) + bz) # (batch_size) x hidden_size)
            # Then calculate the candidate Hidden state
            Hc = _sgm(jnp.dot(Xt, Wxh) + R * jnp.dot(Ht, Whh) + bh) # (batch_size x hidden_size)
            # Then calculate the final Hidden state
            Ht = Z * Ht + (1 - Z) * Hc # (batch_size x hidden_size)
            # Compute the context vector using the previous Hidden states
            Ct = attn(Ht, H) 
            # Calculate the output logits
            Yt = jnp.dot(jnp.concatenate((Ht, Ct), axis=1), Why) + by
            # Update the output sequence
            Y = Y.at[:, i, :].set(Yt)
            # Append the new Hidden State 
            Ht = jnp.expand_dims(Ht, axis=1)
            H = jnp.concatenate([H, Ht], axis=1)

        # Return the updated Hidden State and the output logits
        return H, Y

def _init_W(rng: Array, dim1: int, dim2: int, sigma=0.01):
    return jax.random.normal(rng, shape=(dim1, dim2)) * sigma


def _init_b(dim: int):
    return jnp.zeros((1, dim))


def gru(rng: Array, vocab_size: int, hidden_size: int):

    # Wxr, Whr, Wxz, Whz, Wxh, Whh, Why, br, bz, bh, by

    # Reset Gate
    # Decides how much of the previous hidden state
    # to use to calculate the candidate hidden state
    Wxr = _init_W(rng, vocab_size, hidden_size)

    rng, sub_rng = jax.random.split(rng)  # expect: JIT502
    Whr = _init_W(sub_rng, hidden_size, hidden_size)

    br = _init_b(hidden_size)

    # Update Gate
    # Used to calculate a linear combination of
    # the previous and candidate hidden states
    # to obtain the updated hidden state
    rng, sub_rng = jax.random.split(rng)
    Wxz = _init_W(sub_rng, vocab_size, hidden_size)

    rng, sub_rng = jax.random.split(rng)
    Whz = _init_W(sub_rng, hidden_size, hidden_size)

    bz = _init_b(hidden_size)

    # Candidate Hidden State
    # Used to calculate the updated hidden state
    # Along with the previous hidden state and the update gate
    rng, sub_rng = jax.random.split(rng)
    Wxh = _init_W(sub_rng, vocab_size, hidden_size)

    rng, sub_rng = jax.random.split(rng)
    Whh = _init_W(sub_rng, hidden_size, hidden_size)

    bh = _init_b(hidden_size)

    # Output Layer
    # Projects the final hidden state to the vocab dimension
    # in order to predict the next token
    rng, sub_rng = jax.random.split(rng)
    Why = _init_W(sub_rng, 2*hidden_size, vocab_size)

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
    return optax.sigmoid_binary_cross_entropy(Y_logits, Y_batch).mean()

def _step(loss_fn, optimizer, max_grad, optimizer_state, params, X_batch, Y_batch):

    hidden_size = params[0].shape[1]
    batch_size = Y_batch.shape[0]
    H = jnp.zeros((batch_size, 1, hidden_size))
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
    X_valid: jax.Array,
    Y_valid: jax.Array,
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

    # loop through epochs

    loss = None
    for epoch in range(num_epochs):

        # Emit signal
        epoch_loss = 0
        for _ in range(len(X_train)//batch_size):
            rng, sub_rng = jax.random.split(rng)
            X_batch, Y_batch = _sample(sub_rng, X_train, Y_train, batch_size, vocab_size)
            params, optimizer_state, loss = step_fn(optimizer_state, params, X_batch, Y_batch)
            epoch_loss += loss

        # Emit signal
        if epoch % 20 == 0:
            # Calculate validation loss 
            rng, sub_rng = jax.random.split(rng)
            valid_per = perplexity(model, params, vocab_size, X_valid, Y_valid)
            train_epoch_completed.send(
                model, epoch=epoch, 
                train_loss=epoch_loss, 
                valid_perplexity=valid_per,
                elapsed=(time() - start_time)
            )

    
    return params


def perplexity(model, params, vocab_size, X, Y):

    X_onehot = jnp.eye(vocab_size)[X, :]
    Y_onehot = jnp.eye(vocab_size)[Y, :]
    batch_size = X.shape[0]
    hidden_size = params[0].shape[1]
    H = jnp.zeros((batch_size, 1, hidden_size))
    bce = _loss(model, params, H, X_onehot, Y_onehot)

    return 2**bce




def generate(
    rng: Array, prefix: List[int], params: Parameters, hidden_size: int, vocab_size: int, max_len: int,
) -> List[int]:

    # Initialize the model and hidden state
    model = GRU()
    H = jnp.zeros((1, 1, hidden_size))

    # Feed the prefix to the model
    X = jnp.eye(vocab_size)[prefix, :]
    X = jnp.expand_dims(X, 0) # 1 x seq len x vocab 
    H, Y_pred = model(params=params, H=H, X=X)
    probs = jax.nn.softmax(jnp.squeeze(Y_pred[-1,:]))
    pred_token_idx = random.categorical(rng, jnp.log(probs))

    # Prepare the final output to feed back into the model
    Y_pred = jnp.squeeze(Y_pred)
    Y_pred = jnp.expand_dims(Y_pred[-1, :], axis=(0,1))

    # Collect predictions from the model
    output = prefix.copy()
    for _ in range(max_len):

        # Feed the previous output into the model
        H, Y_pred = model(params=params, H=H, X=Y_pred)

        # Retrieve the token and append to output
        Y_pred = Y_pred.squeeze()
        probs = jax.nn.softmax(Y_pred)
        rng, sub_rng = random.split(rng)  # expect: JIT502
        pred_token_idx = random.categorical(sub_rng, jnp.log(probs))
        output.append(int(pred_token_idx))

        # Reformat the output for the model
        Y_pred = jnp.eye(vocab_size)[pred_token_idx, :]
        Y_pred = jnp.expand_dims(Y_pred, axis=(0,1))

    return output


if __name__ == "__main__":
    import traceback

    # toy data (added): 64 windows of 4 tokens of a 12-token vocabulary, targets shifted by one
    vocab_size, hidden_size = 12, 16
    seq = jax.random.randint(jax.random.PRNGKey(7), (64 + 5,), 0, vocab_size)
    X_train = jnp.stack([seq[i:i + 4] for i in range(64)])
    Y_train = jnp.stack([seq[i + 1:i + 5] for i in range(64)])

    params, model = gru(jax.random.PRNGKey(0), vocab_size, hidden_size)
    params = train(model, rng=jax.random.PRNGKey(1), params=params, X_train=X_train,
                   Y_train=Y_train, X_valid=X_train[:8], Y_valid=Y_train[:8],
                   vocab_size=vocab_size, batch_size=16, num_epochs=2)
    assert all(bool(jnp.isfinite(p).all()) for p in params)
    out = generate(jax.random.PRNGKey(2), [1, 2, 3], params, hidden_size, vocab_size, max_len=3)
    assert len(out) == 6

    jax.config.update("jax_debug_key_reuse", True)
    try:
        try:
            gru(jax.random.key(0), vocab_size, hidden_size)
            raise AssertionError("no error")
        except jax.errors.KeyReuseError as e:
            frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
            # observed: line 143 splits the key that _init_W has just drawn Wxr from
            assert frames[-1].lineno == 143, frames[-1].lineno
        try:
            generate(jax.random.key(2), [1, 2, 3], params, hidden_size, vocab_size, max_len=3)
            raise AssertionError("no error")
        except jax.errors.KeyReuseError as e:
            frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
            # observed: line 322 splits the key random.categorical has just sampled the
            # first token from
            assert frames[-1].lineno == 322, frames[-1].lineno
    finally:
        jax.config.update("jax_debug_key_reuse", False)
