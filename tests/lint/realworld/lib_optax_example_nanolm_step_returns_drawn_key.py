# source: https://github.com/google-deepmind/optax/blob/2edbcbe2390da13983b92cbef94ac0460ecde1c5/examples/nanolm.ipynb
# observed on jax 0.10.2 CPU: with flax 0.12.8 and optax 0.2.8 the notebook trains and
#   generates, but its carried key is drawn from and then split again: inside the jitted `step`,
#   `get_batch` draws the batch indices from the `key` that `step` returns as the next carry,
#   so every later `step` (and the evaluation branch, and the generation cell) splits a key a
#   batch was already drawn from. The notebook uses raw uint32 keys, which JAX's checker does
#   not see; the `__main__` block repeats the calls with a typed key under
#   `jax_debug_key_reuse` (and `jax_disable_jit`, as the checker does not follow a key that a
#   jitted function consumes and returns), and JAX raises KeyReuseError at each of the three
#   splits. (`model.init` also takes
#   `key` rather than `subkey`, the key the first `step` splits; flax derives the parameter keys
#   with `fold_in`, which JAX's checker does not count as a use, so that line is not labelled.)
#   Stand-ins: the tiny_shakespeare text that the notebook loads with tensorflow_datasets is a
#   short repeated passage; the notebook's form fields are set small for a CPU run
#   (N_ITERATIONS 6, N_FREQ_EVAL 2, NUM_LAYERS 1, EMBED_SIZE 32, NUM_HEADS 2, HEAD_SIZE 16,
#   BATCH_SIZE 8); the `%%time` magic, the platform print and the plotting cell are left out.
#   Added: the `__main__` block.
# gap: other
import functools

import flax.linen as nn
import jax
import jax.numpy as jnp
import optax

# @markdown Random seed:
SEED = 42  # @param{type:"integer"}
# @markdown Learning rate passed to the optimizer:
LEARNING_RATE = 5e-3 # @param{type:"number"}
# @markdown Batch size:
BATCH_SIZE = 8  # @param{type:"integer"}
# @markdown Number of training iterations:
N_ITERATIONS = 6  # @param{type:"integer"}
# @markdown Number of training iterations between two consecutive evaluations:
N_FREQ_EVAL = 2 # @param{type:"integer"}
# @markdown Rate for dropout in the transformer model
DROPOUT_RATE = 0.2  # @param{type:"number"}
# @markdown Context window for the transformer model
BLOCK_SIZE = 64  # @param{type:"integer"}
# @markdown Number of layer for the transformer model
NUM_LAYERS = 1  # @param{type:"integer"}
# @markdown Size of the embedding for the transformer model
EMBED_SIZE = 32  # @param{type:"integer"}
# @markdown Number of heads for the transformer model
NUM_HEADS = 2  # @param{type:"integer"}
# @markdown Size of the heads for the transformer model
HEAD_SIZE = 16  # @param{type:"integer"}

text_train = (
    "First Citizen:\nBefore we proceed any further, hear me speak.\n\n"
    "All:\nSpeak, speak.\n\nFirst Citizen:\nYou are all resolved rather to die than to famish?\n\n"
) * 10
text_validation = (
    "All:\nSpeak, resolved.\n\nFirst Citizen:\nFirst, you are all resolved to hear me speak.\n\n"
) * 4

vocab = sorted(list(set(text_train)))
print("Vocabulary:, ", "".join(vocab))
print("Length of vocabulary: ", len(vocab))

# create a mapping from characters to integers
stoi = {ch: i for i, ch in enumerate(vocab)}
itos = {i: ch for i, ch in enumerate(vocab)}
encode = lambda s: [
    stoi[c] for c in s
]  # encoder: take a string, output a list of integers
decode = lambda l: "".join(
    [itos[i] for i in l]
)  # decoder: take a list of integers, output a string

# encode train and validation data
train_data = jnp.array(encode(text_train))
eval_data = jnp.array(encode(text_validation))

dynamic_slice_vmap = jax.vmap(jax.lax.dynamic_slice, in_axes=(None, 0, None))


@jax.jit
def get_batch(random_key, data):
  """Prepares a random batch of training data.

  Args:
      random_key: A random seed for sampling a batch.
      data: The complete training dataset.

  Returns:
      x: Input sequences.
      y: Target sequences (shifted inputs).
  """
  ix = jax.random.randint(
      random_key, shape=(BATCH_SIZE, 1), minval=0, maxval=len(data) - BLOCK_SIZE
  )
  x = dynamic_slice_vmap(data, ix, (BLOCK_SIZE,))
  y = dynamic_slice_vmap(data, ix + 1, (BLOCK_SIZE,))
  return x, y

class NanoLM(nn.Module):
  """NanoLM model."""
  vocab_size: int
  num_layers: int = 6
  num_heads: int = 8
  head_size: int = 32
  dropout_rate: float = 0.2
  embed_size: int = 256
  block_size: int = 64

  @nn.compact
  def __call__(self, x, training: bool):
    seq_len = x.shape[1]

    x = nn.Embed(self.vocab_size, self.embed_size)(x) + nn.Embed(
        self.block_size, self.embed_size
    )(jnp.arange(seq_len))
    for _ in range(self.num_layers):
      x_norm = nn.LayerNorm()(x)
      x = x + nn.MultiHeadDotProductAttention(
          num_heads=self.num_heads,
          qkv_features=self.head_size,
          out_features=self.head_size * self.num_heads,
          dropout_rate=self.dropout_rate,
      )(
          x_norm,
          x_norm,
          mask=jnp.tril(jnp.ones((x.shape[-2], x.shape[-2]))),
          deterministic=not training,
      )

      x = x + nn.Sequential([
          nn.Dense(4 * self.embed_size),
          nn.relu,
          nn.Dropout(self.dropout_rate, deterministic=not training),
          nn.Dense(self.embed_size),
      ])(nn.LayerNorm()(x))

    x = nn.LayerNorm()(x)
    return nn.Dense(self.vocab_size)(x)

  @functools.partial(jax.jit, static_argnames=("self", "length"))
  def generate(self, rng, params, length):
    def _scan_generate(carry, _):
      random_key, context = carry
      logits = self.apply(params, context, training=False)
      rng, rng_subkey = jax.random.split(random_key)
      new_token = jax.random.categorical(
          rng_subkey, logits[:, -1, :], axis=-1, shape=(1, 1)
      )
      context = jnp.concatenate([context[:, 1:], new_token], axis=1)
      return (rng, context), new_token

    _, new_tokens = jax.lax.scan(
        _scan_generate,
        (rng, jnp.zeros((1, self.block_size), dtype=jnp.int32)),
        (),
        length=length,
    )
    return new_tokens

model = NanoLM(
    vocab_size=len(vocab),
    num_layers=NUM_LAYERS,
    num_heads=NUM_HEADS,
    head_size=HEAD_SIZE,
    dropout_rate=DROPOUT_RATE,
    embed_size=EMBED_SIZE,
    block_size=BLOCK_SIZE,
)

def loss_fun(params, x, y, dropout_key):
  logits = model.apply(params, x, training=True, rngs={"dropout": dropout_key})
  return optax.softmax_cross_entropy_with_integer_labels(
      logits=logits, labels=y
  ).mean()


@jax.jit
def eval_step(params, x, y):
  logits = model.apply(params, x, training=False)
  return optax.softmax_cross_entropy_with_integer_labels(
      logits=logits, labels=y
  ).mean()

key = jax.random.PRNGKey(SEED)
key, subkey = jax.random.split(key)

var_params = model.init(
    key,
    jnp.ones((BATCH_SIZE, BLOCK_SIZE), dtype=jnp.int32),
    training=False,
)

n_params = optax.tree.size(var_params)

print(f"Total number of parameters: {n_params:_}")

# To run with SGD instead of adam, replace `adam` with `sgd`
opt = optax.adamw(learning_rate=LEARNING_RATE)

opt_state = opt.init(var_params)

all_train_losses = []
all_eval_losses = []

# we define one iteration of the optimizer and JIT this function
@jax.jit
def step(key, params, opt_state):
  key, subkey = jax.random.split(key)  # expect: JIT502
  batch = get_batch(key, train_data)
  loss, grad = jax.value_and_grad(loss_fun)(params, *batch, subkey)
  updates, opt_state = opt.update(grad, opt_state, params)
  params = optax.apply_updates(params, updates)
  return params, key, opt_state, loss


for i in range(N_ITERATIONS):
  var_params, key, opt_state, loss = step(key, var_params, opt_state)
  all_train_losses.append(loss)

  # once every N_FREQ_EVAL we compute loss on the validation set
  if i % N_FREQ_EVAL == 0:
    key, subkey = jax.random.split(key)  # expect: JIT502
    eval_loss = eval_step(var_params, *get_batch(subkey, eval_data))
    all_eval_losses.append(eval_loss)
    print(f"Step: {i}\t train loss: {loss}\t eval loss: {eval_loss}")

# Let's now generate some text
key, subkey = jax.random.split(key)  # expect: JIT502
text = model.generate(key, var_params, 1000)[:, 0, 0].tolist()
print(decode(text))


if __name__ == "__main__":
    import traceback

    jax.config.update("jax_debug_key_reuse", True)

    def raises_key_reuse_at(fn, linenos):
        try:
            fn()
        except Exception as e:
            assert type(e).__name__ == "KeyReuseError", e
            frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
            assert frames[-1].lineno in linenos, frames
        else:
            raise AssertionError("no key reuse reported")

    # a typed key the checker follows; the checker does not follow a key that a jitted
    # function consumes and then returns, so the steps run with jit disabled
    jax.config.update("jax_disable_jit", True)
    key = jax.random.wrap_key_data(jax.random.PRNGKey(SEED + 1))
    var_params, key, opt_state, loss = step(key, var_params, opt_state)
    # observed: line 206 splits, on the next step, the key the last step's batch was drawn from
    raises_key_reuse_at(lambda: step(key, var_params, opt_state), {206})
    # observed: line 220 splits for evaluation the key the step's batch was drawn from
    raises_key_reuse_at(lambda: jax.random.split(key), {254})  # tolerate: JIT502
    # observed: line 226 splits for generation the key the last step's batch was drawn from
    raises_key_reuse_at(lambda: jax.random.split(key), {256})  # tolerate: JIT502
