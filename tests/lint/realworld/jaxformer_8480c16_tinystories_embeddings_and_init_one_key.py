# source: https://github.com/le-big-mac/Jaxformer/blob/8480c16b3b57979c8381329fffe4fa18e06c4ada/run_basic.ipynb
#   (an individual's from-scratch decoder-only transformer in plain JAX, trained on
#   TinyStories with a whitespace word tokenizer; the notebook's cells with the basic/
#   package it imports inlined from the same commit: activations.py, layers.py,
#   preprocessing.py, model.py, training.py)
# observed on jax 0.10.2 CPU: the notebook draws the word embeddings with
#   create_embeddings(rng, ...) and then hands the same `rng` to init_model, which splits it
#   for the layer keys (replayed with a typed key under jax_debug_key_reuse, the split in
#   init_model raises KeyReuseError); and init_decoder_layer draws both v_weights and
#   linear_weights from keys[1] (split into 4 keys for 5 tensors): the two matrices hold the
#   same normal draws, only scaled differently (fixed upstream in 2e6e864 by splitting 5
#   keys). The jitted loss and sgd_update run correctly (one compile per batch shape).
#   Added: a small stand-in story list in place of load_dataset("roneneldan/TinyStories")
#   (datasets is not installed and the data cannot be downloaded); the basic/ modules
#   inlined (their relative imports dropped, the docstrings of the attention, decoder and
#   output layer helpers left out); the __main__ block. Changed: the training
#   cell runs 2 epochs instead of 100.
# gap: other
import jax
import jax.numpy as jnp
from jax import jit


# ---- basic/activations.py
def relu(x):
    return jnp.maximum(0, x)

def gelu(x):
    return 0.5 * x * (1 + jnp.tanh(jnp.sqrt(2 / jnp.pi) * (x + 0.044715 * jnp.power(x, 3))))

def softmax(x, axis=-1, temp=1.):
    exp_x = jnp.exp((x - jnp.max(x, axis=axis, keepdims=True)) / temp) # for numerical stability
    return exp_x / jnp.sum(exp_x, axis=axis, keepdims=True)


# ---- basic/layers.py
def linear(x, W, b=None):
    """
    x : (..., d_in)
    W : (..., d_in, d_out)
    N.B. Be careful with shapes of x and W, as they are not explicitly checked.
    """
    if b is None:
        return jnp.einsum('...i,...ij->...j', x, W)
    return jnp.einsum('...i,...ij->...j', x, W) + b

def dot_product_attention(Q, K, V, mask):
    Q = Q.transpose((1, 0, 2)) # (num_heads, seq_len, d_k)
    K = K.transpose((1, 2, 0)) # (num_heads, d_k, seq_len)
    V = V.transpose((1, 0, 2)) # (num_heads, seq_len, d_v)
    d_k = Q.shape[-1]
    scores = jnp.einsum('...ij,...jk->...ik', Q, K) / jnp.sqrt(d_k)
    scores = jnp.where(mask, scores, -jnp.inf)
    attention = softmax(scores, axis=-1) # (num_heads, seq_len, seq_len)
    return jnp.einsum('...ij,...jk->...ik', attention, V).transpose((1, 0, 2)) # (seq_len, num_heads, d_v)

def embedding(x, embeddings):
    return jnp.take(embeddings, x, axis=0)

def multi_head_attention(x, qk_weights, v_weights, linear_weights):
    x = jnp.expand_dims(x, axis=1)
    qk = linear(x, qk_weights) # (seq_len, num_heads, 2*d_k)
    Q, K = jnp.split(qk, 2, axis=-1)
    V = linear(x, v_weights) # (seq_len, num_heads, d_v)
    mask = jnp.triu(jnp.ones((x.shape[0], x.shape[0])), 1) == 0
    mask = jnp.broadcast_to(mask, (qk_weights.shape[0], *mask.shape)) # (num_heads, seq_len, seq_len)

    attention_matrix = dot_product_attention(Q, K, V, mask) # (seq_len, num_heads, d_v)
    ff_out = linear(attention_matrix.reshape(attention_matrix.shape[0], -1), linear_weights) # if num_heads*d_v = d_model, linear_weights could be identity
    return ff_out # (seq_len, d_model)

def layer_normalization(x):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    std = jnp.std(x, axis=-1, keepdims=True)
    return (x - mean) / std

def decoder_layer(x, qk_weights, v_weights, linear_weights, feedforward_weights, feedforward_biases, layer_norm=True):
    attention_output = multi_head_attention(x, qk_weights, v_weights, linear_weights) # (seq_len, d_model)
    if layer_norm:
        x = layer_normalization(x + attention_output)
        x = layer_normalization(x + gelu(linear(x, feedforward_weights) + feedforward_biases))
    else:
        x = x + attention_output
        x = x + gelu(linear(x, feedforward_weights) + feedforward_biases)
    return x

def init_decoder_layer(rng, num_heads, d_model, d_k, d_v):
    keys = jax.random.split(rng, 4)
    qk_weights = jax.random.normal(keys[0], (num_heads, d_model, 2*d_k)) / jnp.sqrt(d_model + d_k)
    v_weights = jax.random.normal(keys[1], (num_heads, d_model, d_v)) / jnp.sqrt(d_model + d_v)
    linear_weights = jax.random.normal(keys[1], (num_heads*d_v, d_model)) / jnp.sqrt(num_heads*d_v + d_v)  # expect: JIT502
    feedforward_weights = jax.random.normal(keys[2], (d_model, d_model)) / jnp.sqrt(d_model + d_model)
    feedforward_biases = jax.random.normal(keys[3], (d_model,))
    return qk_weights, v_weights, linear_weights, feedforward_weights, feedforward_biases

def output_layer(x, output_weights, output_biases, temp=1.):
    return softmax(linear(x.reshape(-1), output_weights, output_biases), temp=temp)

def init_output_layer(rng, seq_len, d_model, vocab_size):
    keys = jax.random.split(rng, 2)
    output_weights = jax.random.normal(keys[0], (seq_len*d_model, vocab_size)) / jnp.sqrt(seq_len*d_model + vocab_size)
    output_biases = jax.random.normal(keys[1], (vocab_size,))
    return output_weights, output_biases


# ---- basic/preprocessing.py
def tokenize(text_list):
    tokenized_sentences = []
    word_to_int = {}
    unique_integers = 1

    for sentence in text_list:
        tokenized_sentence = []
        sentence = sentence.lower().strip()
        for word in sentence.split():
            if word not in word_to_int:
                word_to_int[word] = unique_integers
                unique_integers += 1
            tokenized_sentence.append(word_to_int[word])
        tokenized_sentences.append(tokenized_sentence)

    return tokenized_sentences, word_to_int, unique_integers

def create_embeddings(rng, vocab_size, d_model):
    pad = jnp.zeros((1, d_model))
    return jnp.concatenate([pad, jax.random.normal(rng, (vocab_size, d_model))], axis=0)

def positional_encoding(seq_len, d_model):
    pos = jnp.arange(seq_len)[:, None]
    i = jnp.arange(d_model)[None, :]
    angle = 1 / jnp.power(10000, (2 * (i // 2)) / jnp.float32(d_model))
    return jnp.where(i % 2 == 0, jnp.sin(angle * pos), jnp.cos(angle * pos)) # (seq_len, d_model)

def onehot(x, vocab_size):
    return jnp.array(x[:, None] == jnp.arange(vocab_size), dtype=jnp.float32)


# ---- basic/model.py
def get_model(num_decoder_layers, temp=1., layer_norm=True):
    # This is dumb, but lets me make optimizers more general
    def model(param_dict: dict,
              positional_encoding: jnp.ndarray,
              x: jnp.ndarray,
              ):
        x = embedding(x, param_dict['embeddings']) + positional_encoding
        for i in range(num_decoder_layers):
            qkw = param_dict[f'qkw_{i}']
            vw = param_dict[f'vw_{i}']
            lw = param_dict[f'lw_{i}']
            fw = param_dict[f'fw_{i}']
            fb = param_dict[f'fb_{i}']
            x = decoder_layer(x, qkw, vw, lw, fw, fb, layer_norm=layer_norm)
        return output_layer(x, param_dict['ow'], param_dict['ob'], temp=temp)

    return model

def batch_model(model):
    return jax.vmap(model, in_axes=(None, None, 0), out_axes=0)

def init_model(rng, num_decoder_layers, num_heads, d_model, d_k, d_v, seq_len, vocab_size):
    keys = jax.random.split(rng, num_decoder_layers + 1)  # tolerate: JIT502
    param_dict = {}
    for i in range(num_decoder_layers):
        qkw, vw, lw, fw, fb = init_decoder_layer(keys[i], num_heads, d_model, d_k, d_v)
        param_dict[f'qkw_{i}'] = qkw
        param_dict[f'vw_{i}'] = vw
        param_dict[f'lw_{i}'] = lw
        param_dict[f'fw_{i}'] = fw
        param_dict[f'fb_{i}'] = fb
    param_dict['ow'], param_dict['ob'] = init_output_layer(keys[-1], seq_len, d_model, vocab_size)
    return param_dict

def num_params(param_dict):
    return sum(v.size for v in param_dict.values())


# ---- basic/training.py
def get_cross_entropy_loss(model):
    def cross_entropy_loss(param_dict, positional_encoding, x, y):
        return -jnp.sum(y * jnp.log(model(param_dict, positional_encoding, x))) / x.shape[0]
    return jit(cross_entropy_loss)

@jit
def sgd_update(param_dict, grads, learning_rate, train_embeddings=True):
    new_param_dict = {k: v - learning_rate * grads[k] for (k, v) in param_dict.items() if k != 'embeddings'}

    if train_embeddings:
        new_param_dict['embeddings'] = param_dict['embeddings'] - learning_rate * grads['embeddings']
        new_param_dict['embeddings'] = jnp.concatenate([jnp.zeros((1, new_param_dict['embeddings'].shape[1])), new_param_dict['embeddings'][1:]], axis=0)

    return new_param_dict


# ---- run_basic.ipynb
# stand-in (added) for load_dataset("roneneldan/TinyStories", split="train")
dataset = {"text": [
    "Once upon a time there was a little girl named Lily. She liked to play in the park with her dog.",
    "One day a big bird came to the park. The bird was sad because it lost its nest.",
    "Lily and her dog helped the bird find a new nest in a tall tree. The bird was happy.",
    "Tom had a red ball. He threw the ball to his friend Sam and they played all day.",
]}

rng = jax.random.PRNGKey(0)

train_data = dataset["text"][:200]
train_data, word2idx, vocab_size = tokenize(train_data)

max_len = 100

next_word_train_data = []
next_word_train_labels = []
for sentence in train_data:
    for i in range(1, min(len(sentence), max_len)):
        next_word_train_data.append(sentence[:i] + [0] * (max_len - i))
        next_word_train_labels.append(sentence[i])

next_word_train_data = jnp.array(next_word_train_data)
next_word_train_labels = jnp.array(next_word_train_labels)
next_word_train_labels = onehot(next_word_train_labels, vocab_size)

num_decoder_layers = 5
num_heads = 8
d_model = d_k = d_v = 64
seq_len = max_len

embeddings = create_embeddings(rng, vocab_size, d_model)
positional_encodings = positional_encoding(seq_len, d_model)
model = get_model(num_decoder_layers)
model = batch_model(model)
param_dict = init_model(rng, num_decoder_layers, num_heads, d_model, d_k, d_v, seq_len, vocab_size)  # expect: JIT502
param_dict["embeddings"] = embeddings

print(num_params(param_dict))

learning_rate = 0.005
num_epochs = 2
batch_size = 512
loss_fn = get_cross_entropy_loss(model)

for epoch in range(num_epochs):
    for i in range(0, len(next_word_train_data), batch_size):
        batch_data = next_word_train_data[i:i + batch_size]
        batch_labels = next_word_train_labels[i:i + batch_size]
        loss, grads = jax.value_and_grad(loss_fn)(param_dict, positional_encodings, batch_data, batch_labels)
        param_dict = sgd_update(param_dict, grads, learning_rate)
        print(f"Batch {i // batch_size}: Loss {loss}")


if __name__ == "__main__":
    import traceback

    # observed: line 91 draws linear_weights from keys[1], the key v_weights was drawn from:
    # the two matrices hold the same normal draws (32768 of them), scaled differently
    _, vw, lw, _, _ = init_decoder_layer(jax.random.PRNGKey(1), num_heads, d_model, d_k, d_v)
    assert vw.size == lw.size
    assert jnp.allclose(vw.ravel() * jnp.sqrt(d_model + d_v),
                        lw.ravel() * jnp.sqrt(num_heads * d_v + d_v), atol=1e-5)
    assert bool(jnp.isfinite(loss))

    jax.config.update("jax_debug_key_reuse", True)
    try:
        key = jax.random.key(0)
        create_embeddings(key, vocab_size, d_model)
        init_model(key, num_decoder_layers, num_heads, d_model, d_k, d_v, seq_len, vocab_size)  # tolerate: JIT502
        raise AssertionError("no error")
    except jax.errors.KeyReuseError as e:
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        # observed: line 230 hands init_model the key create_embeddings has just drawn the
        # embeddings from: replayed with a typed key, the split in init_model raises
        assert frames[-1].lineno == 161, frames[-1].lineno
    finally:
        jax.config.update("jax_debug_key_reuse", False)
