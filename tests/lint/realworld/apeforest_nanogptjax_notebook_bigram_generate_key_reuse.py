# source: https://github.com/apeforest/NanoGpt-JAX/blob/f25ce1a9f201be6f096c3ac6be07de45994c998e/gpt_dev_jax.ipynb
#   (an individual's JAX/flax port of Karpathy's "Let's build GPT" notebook; code cells 3-18:
#   data, batches, the bigram language model and its generate loop)
# observed on jax 0.10.2 CPU: generate splits `rng` and samples the next token from the half
#   it keeps, then splits that consumed key again on the next iteration (JAX's key-reuse
#   checker raises KeyReuseError at the split); the notebook then calls generate a second
#   time with the key the first call got, so it prints the same 100 tokens again (the
#   notebook's stored outputs show it: the decoded text is the printed idx); and the init key
#   is split off init_rng after get_batch has drawn the batch offsets from init_rng.
#   Changed: `jax.tree_map` -> `jax.tree.map`. Added: a stand-in text in place of
#   input.txt (downloaded with wget in cell 2, left out); the __main__ block, which replays
#   the calls with the key-reuse checker on.
# gap: other
# In[3]:
# read it in to inspect it
# stand-in for input.txt (tiny Shakespeare, downloaded with wget in cell 2)
text = "First Citizen:\nBefore we proceed any further, hear me speak.\n\nAll:\nSpeak, speak.\n\nFirst Citizen:\nYou are all resolved rather to die than to famish?\n" * 10


# In[4]:
print("length of dataset in characters: ", len(text))


# In[5]:
# let's look at the first 1000 characters
print(text[:1000])


# In[6]:
chars = sorted(list(set(text)))
vocab_size = len(chars)
print(''.join(chars))
print(vocab_size)


# In[7]:
# create a mapping from characters to integers
stoi = { ch:i for i,ch in enumerate(chars) }
itos = { i:ch for i,ch in enumerate(chars) }
encode = lambda s: [stoi[c] for c in s] # encoder: take a string, output a list of integers
decode = lambda l: ''.join([itos[i] for i in l]) # decoder: take a list of integers, output a string

print(encode("hii there"))
print(decode(encode("hii there")))


# In[9]:
# let's now encode the entire text dataset and store it into a jnp array
import jax.numpy as jnp
import jax

jax.config.update("jax_enable_x64", True)

data = jnp.array(encode(text), dtype=jnp.int64)
print(data.shape, data.dtype)
print(data[:1000]) # the 1000 characters we looked at earier will to the GPT look like this


# In[10]:
# Let's now split up the data into train and validation sets
n = int(0.9*len(data)) # first 90% will be train, rest val
train_data = data[:n]
val_data = data[n:]


# In[11]:
block_size = 8 # the number of tokens the model looks at, aka context length
train_data[:block_size+1]


# In[12]:
x = train_data[:block_size]
y = train_data[1:block_size+1]
for t in range(block_size):
    context = x[:t+1]
    target = y[t]
    print(f"when input is {context} the target: {target}")


# In[13]:
from jax import random

# NOTE: JAX does not keep a global ramdom seed
# Users need to pass the random seed key to every call that requires random
# seed.

init_rng = random.PRNGKey(42)
batch_size = 4 # how many independent sequences will we process in parallel?
block_size = 8 # what is the maximum context length for predictions?

def get_batch(split, rng):
    # generate a small batch of data of inputs x and targets y
    data = train_data if split == 'train' else val_data
    ix = random.randint(rng, (batch_size, ), 0, len(data) - block_size)
    x = jnp.stack([data[i:i+block_size] for i in ix])
    y = jnp.stack([data[i+1:i+block_size+1] for i in ix])
    return x, y

xb, yb = get_batch('train', init_rng)
print('inputs:')
print(xb.shape)
print(xb)
print('targets:')
print(yb.shape)
print(yb)

print('----')

for b in range(batch_size): # batch dimension
    for t in range(block_size): # time dimension
        context = xb[b, :t+1]
        target = yb[b,t]
        print(f"when input is {context.tolist()} the target: {target}")


# In[14]:
print(xb) # our input to the transformer


# In[16]:
import flax.linen as nn

class BigramLanguageModel(nn.Module):
    vocab_size: int

    # This is explicit setup similar to PyTorch
    def setup(self):
        # each token directly reads off the logits for the next token from a lookup table
        self.token_embedding_table = nn.Embed(self.vocab_size, self.vocab_size)

    def __call__(self, idx):

        # idx are (B, T) tensor of integers: B is batch size, T is context length
        # C is channel length which equals to vocab_size here.
        logits = self.token_embedding_table(idx) # (B,T,C)

        return logits

bgm = BigramLanguageModel(vocab_size)
print(bgm.tabulate(jax.random.PRNGKey(0), jnp.ones((vocab_size, vocab_size), dtype=jnp.int64)))


# In[17]:
from flax.core.frozen_dict import V
import optax

_, rng = random.split(init_rng)  # expect: JIT502
m = BigramLanguageModel(vocab_size)

# Initialize model weights
# NOTE: in JAX, the model doesn't store any weights because JAX is a functional
# programming language and each function call is pure.
params = m.init(rng, jnp.zeros((vocab_size, vocab_size), dtype=jnp.int64))

# Check the parameters
jax.tree.map(lambda x: x.shape, params)

# NOTE: in FLAX, users cannot directly call the model as m(x). Instead, we need
# to explicitly pass in the arguments.
logits = m.apply(params, xb)

print(f'{logits.shape=}')
print(f'{yb.shape=}')

loss = optax.softmax_cross_entropy_with_integer_labels(logits, yb).mean()
print(f'{loss=}')


# In[18]:
# from flax.core.frozen_dict import V
import optax

# This is a JAX implementation of the PyTorch multinomial function.
def multinomial(rng, input, num_samples, replacement=False):
    # input: Tensor of shape (batch_size, num_categories) containing the probabilities for each category
    # num_samples: The number of samples to draw for each batch
    # replacement: Whether to sample with replacement or not

    batch_size, num_categories = input.shape

    # Transform input to log probabilities
    log_probs = jnp.log(input)

    # Generate random samples
    samples = jax.random.categorical(rng, log_probs, axis=-1)

    # If replacement is False, we need to ensure unique samples within each batch
    if not replacement:
        unique_samples = jnp.unique(samples, axis=-1, return_counts=True)
        repeated_indices = unique_samples[1] > 1
        while jnp.any(repeated_indices):
            # Replace repeated samples with new samples
            new_samples = jax.random.categorical(rng, log_probs, jnp.sum(repeated_indices), axis=-1)
            samples = jnp.where(repeated_indices[:, jnp.newaxis], new_samples, samples)

            unique_samples = jnp.unique(samples, axis=-1, return_counts=True)
            repeated_indices = unique_samples[1] > 1

    return jnp.expand_dims(samples, 1)

# The generate method here is generic, even though the bigram model only looks
# at one token before the current.
def generate(model, rng, params, idx, max_new_tokens):
    # idx is (B, T) array of indices in the current context
    for _ in range(max_new_tokens):
        # get the predictions
        logits = model.apply(params, idx)
        # focus only on the last time step
        logits = logits[:, -1, :] # becomes (B, C)

        # apply softmax to get probabilities
        probs = jax.nn.softmax(logits, axis=-1) # (B, C)
        # sample from the distribution
        _, rng = random.split(rng)  # expect: JIT502

        idx_next = multinomial(rng, probs, num_samples=1) # (B, 1)

        # append sampled index to the running sequence
        idx = jnp.concatenate((idx, idx_next), axis=1) # (B, T+1)
    return idx

_, rng = random.split(rng)

idx = generate(m, rng, params, jnp.zeros((1, 1), dtype=jnp.int64), max_new_tokens=100)
print(idx)
print(decode(generate(m, rng, params, idx = jnp.zeros((1, 1), dtype=jnp.int64), max_new_tokens=100)[0].tolist()))  # expect: JIT502


if __name__ == "__main__":
    import traceback

    again = generate(m, rng, params, jnp.zeros((1, 1), dtype=jnp.int64), max_new_tokens=100)  # tolerate: JIT502
    # observed: line 226 calls generate with the key the call before it got: the same tokens again
    assert jnp.array_equal(again, idx)

    jax.config.update("jax_debug_key_reuse", True)
    try:
        generate(m, jax.random.key(1), params, jnp.zeros((1, 1), dtype=jnp.int64), max_new_tokens=3)
        raise AssertionError("no error")
    except jax.errors.KeyReuseError as e:
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        # observed: line 214 splits the key multinomial has just sampled a token from
        assert frames[-1].lineno == 214, frames[-1].lineno
    try:
        key = jax.random.key(42)
        xb_, yb_ = get_batch('train', key)
        _, key_ = random.split(key)  # tolerate: JIT502
        raise AssertionError("no error")
    except jax.errors.KeyReuseError as e:
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        # observed: line 147 splits init_rng after get_batch drew from it: replayed with a
        # typed key under jax_debug_key_reuse, that split raises KeyReuseError
        assert frames[-1].lineno == 247, frames[-1].lineno
    finally:
        jax.config.update("jax_debug_key_reuse", False)
