# source: https://github.com/ChristianOrr/transformers/blob/d88b7947cd4776261011ea35dfbe7c8a40535b44/helper_funcs.py
#   (an individual's JAX/flax walk-through of Karpathy's GPT lectures; helper_funcs.py is
#   imported by its bigram, self-attention, decoder and gpt-2 notebooks)
# observed on jax 0.10.2 CPU: the jitted generate splits one subkey per step and then
#   copies that single key to every batch row with jnp.repeat before the vmapped
#   jax.random.choice, so all batch_size rows draw with the same key: from the same prompt
#   every row generates the identical sequence (and with different prompts the draws share
#   their uniform numbers). The notebooks call it with batch_size=1, where it is harmless.
# gap: other
# observed: line 70 every row of the batch gets the same subkey: generate with batch_size=4 from four equal prompts returns four identical sequences; replaying its first step with the repeated key gives one token for every row, with split keys four different ones
# Kept: helper_funcs.py as written. Added: the bigram model of bigram.ipynb (cell 9), a
#   stand-in text in place of tiny Shakespeare, and the __main__ block.
import jax
from jax import random
import jax.numpy as jnp
import optax
from functools import partial



def get_batch(data, rng_key, batch_size, block_size):
    """
    Extracts a random batch of input and target data
    Args:
        data: An array of all the data's token ID's.
        rng_key: Random number generator key.
        batch_size: Number of parallel batches.
        block_size: Maximum time length for the token sequence.
    Returns:
        Input token ID's and target token ID's.
    """
    ix = random.randint(key=rng_key, shape=(batch_size, ), minval=0, maxval=len(data) - block_size)
    x = jnp.stack([data[i:i+block_size] for i in ix])
    y = jnp.stack([data[i+1:i+block_size+1] for i in ix])
    return x, y


@partial(jax.jit, static_argnames=['forward_fn', 'vocab_size', 'batch_size', 'block_size', 'max_new_tokens'])
def generate(variables, forward_fn, index_seq, rng_key, vocab_size, batch_size, block_size, max_new_tokens):
    """
    Generates max_new_tokens number of new tokens, 
    given the starting sequence of tokens index_seq 
    Args:
        variables: Bigram models parameters.
        forward_fn: Function that performs a forward pass of the model.
        index_seq: Array of token indices with shape (B, T), 
            where B is the batch size and T is the time steps.
        rng_key: Random number generator key.
        vocab_size: Number of independent tokens in the vocabulary.
        batch_size: Number of parallel batches.
        max_new_tokens: Maximum number of new tokens to generate
    Returns:
        An array of generated indices
    """
    # Batched sampling function
    batched_choice = jax.vmap(jax.random.choice)
    
    for _ in range(max_new_tokens):
        # Crop index_seq to the last block_size tokens
        index_cond = index_seq[:, -block_size:]
        logits = forward_fn(variables, index_cond)
        # Focus only on the last time step
        # Shape changes from (B, T, C) -> (B, C)
        logits = logits[:, -1, :]
        # Convert to probabilities using softmax
        probs = jax.nn.softmax(logits, axis=-1)
        # Sample a token index using probs
        rng_key, subkey = jax.random.split(rng_key)
        batched_key = subkey.reshape(1, -1)
        batched_key = jnp.repeat(batched_key, batch_size, axis=0)  # expect: JIT502
        a = jnp.arange(vocab_size).reshape(1, -1)
        a = jnp.repeat(a, batch_size, axis=0)
        next_indexes = batched_choice(batched_key, a, p=probs)  # tolerate: JIT502
        next_indexes = next_indexes.reshape(batch_size, -1)
        # Append the sampled index to the running sequence
        index_seq = jnp.concatenate([index_seq, next_indexes], axis=1)
    return index_seq


def masked_fill(mask, a, fill):
    return jax.lax.select(mask, a, jax.lax.broadcast(fill, a.shape))


def loss_fn(variables, forward_fn, index_seq, labels):
    """
    Calculates the cross entropy loss of 
    all batches and time steps, 
    then returns the mean.
    Args:
        variables: Language model parameters.
        forward_fn: Function that performs a forward pass of the model.
        index_seq: Array of token indices with shape (B, T), 
            where B is the batch size and T is the time steps.
        labels: Indexes of the next token in the sequence.
    Returns:
        Cross entropy loss
    """
    logits = forward_fn(variables, index_seq)

    loss = optax.softmax_cross_entropy_with_integer_labels(logits, labels)
    # Average loss across all batches and time steps
    loss = loss.mean()
    return loss


# bigram.ipynb, cell 9 (the notebook's model; it imports get_batch, generate, loss_fn from here)
import flax.linen as nn
import numpy as np


class BigramLanguageModel(nn.Module):
    """
    Uses the previous token in the sequence to 
    determine the probabilities of the next token.
    """
    vocab_size: int
    
    @nn.compact
    def __call__(self, x):
        # Each token directly reads off the logits for the next token from a lookup table
        token_embedding_table = nn.Embed(num_embeddings=self.vocab_size, features=self.vocab_size)
        logits = token_embedding_table(x)
        return logits


if __name__ == "__main__":
    text = "First Citizen:\nBefore we proceed any further, hear me speak.\n\nAll:\nSpeak, speak.\n" * 20
    chars = sorted(set(text))
    vocab_size = len(chars)
    stoi = {ch: i for i, ch in enumerate(chars)}
    train_ids = np.array([stoi[c] for c in text], dtype=np.uint16)
    init_key, batch_key, gen_key = jax.random.split(jax.random.PRNGKey(128), 3)
    block_size = 8
    xb, yb = get_batch(train_ids, batch_key, 4, block_size)
    model = BigramLanguageModel(vocab_size)
    variables = model.init(init_key, xb)

    batch_size = 4
    index_seq = jnp.zeros(shape=(batch_size, 1), dtype=jnp.uint16)
    out = generate(variables, model.apply, index_seq, gen_key, vocab_size, batch_size, block_size, 30)
    out = np.asarray(out)
    print(out)
    # line 70: four equal prompts, four identical 30-token samples from a random bigram table
    assert all((out[b] == out[0]).all() for b in range(batch_size))
    # what an independent key per row gives instead: the rows differ
    _, subkey = jax.random.split(gen_key)  # tolerate: JIT502
    probs = jax.nn.softmax(model.apply(variables, index_seq)[:, -1, :], axis=-1)
    a = jnp.repeat(jnp.arange(vocab_size).reshape(1, -1), batch_size, axis=0)
    per_row = jax.vmap(jax.random.choice)(jax.random.split(subkey, batch_size), a, p=probs)
    same_key = jax.vmap(jax.random.choice)(jnp.repeat(subkey.reshape(1, -1), batch_size, axis=0), a, p=probs)  # tolerate: JIT502
    print("first token, one key per row:", np.asarray(per_row), " the function's keys:", np.asarray(same_key))
    assert len(set(np.asarray(same_key).tolist())) == 1
    assert len(set(np.asarray(per_row).tolist())) > 1
    assert int(same_key[0]) == int(out[0, 1])
