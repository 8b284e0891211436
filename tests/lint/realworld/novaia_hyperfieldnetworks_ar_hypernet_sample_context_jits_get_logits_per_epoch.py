# source: https://github.com/novaia/hyper-field-networks/blob/397b580660b8244c615dff0419478f6bafa1eaa3/hypernets/ar_hypernet.py
#   (an autoregressive transformer over tokenized neural-field weights; its training script
#   samples one context with sample_context at the end of every epoch)
# observed on jax 0.10.2 CPU: every call of sample_context defines and jits a new closure
#   get_logits, so every epoch's sample compiles the whole transformer again (one backend
#   compilation per epoch after the first, with the same shapes and the same model): the
#   second and third epochs' sample_context calls compile once each.
#   Kept as written: AttentionBlock, MlpBlock, ArHypernet, train_step, test_step,
#   sample_context, and the epoch loop of main(). Changed: sizes shrunk (context_length 8,
#   hidden_dim 32, ff_dim 64, 4 heads, 1 block, 3 epochs, 3 train and 1 test steps);
#   `x.astype(x)` (an array as dtype, no longer accepted) is spelled `x.astype(x.dtype)`.
#   Added: imports; a stand-in for load_dataset (random uint8 token arrays in place of the
#   HF parquet dataset, which is not available); vocab_size 256 in place of
#   fp_tokenization's get_u8_vocab_size (a CUDA extension, not installed); the rendering of
#   each sample through fp_tokenization/ngp_image and wandb logging are left out; the
#   __main__ block counts backend compilations during each sample_context call.
# gap: per-call-recompile
import jax
from jax import numpy as jnp
from flax import linen as nn
import optax
from flax.training.train_state import TrainState
import numpy as np
from typing import Any
from functools import partial


def load_dataset_standin(num_train, num_test, context_length, vocab_size, seed=0):
    # stand-in for load_dataset: uint8 tokens of the shape the parquet dataset holds
    rs = np.random.RandomState(seed)
    train = rs.randint(0, vocab_size, size=(num_train, context_length)).astype(np.uint8)
    test = rs.randint(0, vocab_size, size=(num_test, context_length)).astype(np.uint8)
    return train, test, context_length

    return train, test, field_config, param_map, context_length


class AttentionBlock(nn.Module):
    hidden_dim: int
    num_attention_heads: int
    dtype: Any

    @nn.compact
    def __call__(self, x, attention_mask):
        residual = x
        x = nn.LayerNorm(dtype=jnp.float32)(x)
        x = x.astype(self.dtype)
        x = nn.MultiHeadDotProductAttention(
            num_heads=self.num_attention_heads,
            qkv_features=self.hidden_dim,
            out_features=self.hidden_dim,
            dtype=self.dtype,
            use_bias=False,
            normalize_qk=False
        )(inputs_q=x, mask=attention_mask)
        x = x.astype(self.dtype)
        x = x + residual
        return x

class MlpBlock(nn.Module):
    ff_dim: int
    hidden_dim: int
    dtype: Any
    dropout_rate: float
    
    @nn.compact
    def __call__(self, x, training):
        residual = x
        x = nn.LayerNorm(dtype=jnp.float32)(x)
        x = x.astype(self.dtype)
        x = nn.Dense(features=self.ff_dim, dtype=self.dtype)(x)
        x = nn.gelu(x)
        x = nn.Dense(features=self.hidden_dim, dtype=self.dtype)(x)
        if self.dropout_rate > 0.0:
            x = nn.Dropout(rate=self.dropout_rate)(x, deterministic=not training)
        x = x + residual
        return x

class ArHypernet(nn.Module):
    vocab_size: int
    context_length: int
    hidden_dim: int
    ff_dim: int
    num_attention_heads: int
    num_blocks: int
    dtype: Any
    dropout_rate: float

    @nn.compact
    def __call__(self, tokens, training):
        attention_mask = nn.make_causal_mask(tokens)
        # Add 1 to vocab size to allow for start token.
        # Start token should never be predicted so it is not added to the base vocab.
        x = nn.Embed(num_embeddings=self.vocab_size+1, features=self.hidden_dim)(tokens)
        x = x.astype(x.dtype)
        positions = jnp.arange(self.context_length, dtype=jnp.uint32)
        pos_emb = nn.Embed(num_embeddings=self.context_length, features=self.hidden_dim)(positions)
        pos_emb = pos_emb.astype(self.dtype)
        x = x + pos_emb
        
        for _ in range(self.num_blocks):
            x = nn.remat(AttentionBlock)(
                hidden_dim=self.hidden_dim, 
                num_attention_heads=self.num_attention_heads, 
                dtype=self.dtype
            )(x, attention_mask)
            x = nn.remat(MlpBlock)(
                ff_dim=self.ff_dim, 
                hidden_dim=self.hidden_dim, 
                dtype=self.dtype, 
                dropout_rate=self.dropout_rate
            )(x, training)
        logits = nn.Dense(features=self.vocab_size, dtype=self.dtype)(x)
        return logits

@jax.jit
def train_step(state, tokens, start_tokens):
    input_tokens = jnp.concatenate([start_tokens, tokens[..., :-1]], axis=-1)
    target_tokens = tokens
    def loss_fn(params):
        logits = state.apply_fn(
            {'params': params}, 
            tokens=input_tokens, 
            training=True, 
            rngs={'dropout': jax.random.PRNGKey(state.step)}
        )
        loss = jnp.mean(optax.softmax_cross_entropy_with_integer_labels(logits, target_tokens))
        return loss
    grad_fn = jax.value_and_grad(loss_fn, has_aux=False)
    loss, grad = grad_fn(state.params)
    state = state.apply_gradients(grads=grad)
    return loss, state

@jax.jit
def test_step(state, tokens, start_tokens):
    input_tokens = jnp.concatenate([start_tokens, tokens[..., :-1]], axis=-1)
    target_tokens = tokens
    logits = jax.lax.stop_gradient(state.apply_fn({'params': state.params}, tokens=input_tokens, training=False))
    loss = jnp.mean(optax.softmax_cross_entropy_with_integer_labels(logits, target_tokens))
    return loss

def sample_context(state, prompt_tokens, vocab_size, context_length, temperature=1.0):
    tokens = jnp.zeros((1, context_length), dtype=jnp.uint8)
    for i in range(len(prompt_tokens)):
        tokens = tokens.at[0, i].set(prompt_tokens[i])
    vocab = jnp.arange(vocab_size, dtype=jnp.uint32)

    @jax.jit  # expect: JIT301
    def get_logits(state, tokens):
        return state.apply_fn({'params': state.params}, tokens=tokens, training=False)

    for i in range(len(prompt_tokens)-1, context_length):
        logits = get_logits(state, tokens)
        logits = logits[0, i, :] / temperature
        probs = nn.softmax(logits)
        next_token = jax.random.choice(jax.random.PRNGKey(state.step+i), a=vocab, p=probs)
        if i == context_length - 1:
            # Remove the start token and add last token to the end.
            tokens = tokens[:, 1:]
            tokens = jnp.concatenate(
                [tokens, jnp.ones((1, 1), dtype=jnp.uint32) * next_token], 
                axis=-1
            )
        else:
            tokens = tokens.at[0, i+1].set(next_token)
    
    return tokens

def main(compiles, sample_compiles):
    # main() of the script with the dataset, tokenizer, rendering and wandb parts left out
    vocab_size = 256  # fpt.get_u8_vocab_size()
    train_set, test_set, context_length = load_dataset_standin(12, 4, 8, vocab_size)

    num_epochs = 3
    batch_size = 4
    hidden_dim = 32
    ff_dim = 64
    num_attention_heads = 4
    num_blocks = 1
    learning_rate = 1e-4
    weight_decay = 1e-8
    sample_temperature = 1.0
    dropout_rate = 0.0
    start_token = vocab_size
    batched_start_tokens = jnp.full((batch_size, 1), fill_value=start_token, dtype=jnp.uint8)

    model = ArHypernet(
        vocab_size=vocab_size,
        context_length=context_length,
        hidden_dim=hidden_dim,
        num_attention_heads=num_attention_heads,
        num_blocks=num_blocks,
        dtype=jnp.bfloat16,
        dropout_rate=dropout_rate,
        ff_dim=ff_dim
    )
    x = jnp.ones((batch_size, context_length), dtype=jnp.uint8)
    params_key = jax.random.PRNGKey(91)
    params = jax.jit(partial(model.init, training=False))(params_key, tokens=x)['params']
    opt = optax.chain(
        optax.zero_nans(),
        optax.adamw(learning_rate=learning_rate, weight_decay=weight_decay)
    )
    state = TrainState.create(apply_fn=model.apply, params=params, tx=opt)

    train_steps = len(train_set) // batch_size
    test_steps = len(test_set) // batch_size
    for epoch in range(num_epochs):
        rs = np.random.RandomState(epoch)  # train_set.shuffle(seed=epoch)
        order = rs.permutation(len(train_set))
        for step in range(train_steps):
            tokens = jnp.array(train_set[order[step*batch_size:(step+1)*batch_size]], dtype=jnp.uint8)
            loss, state = train_step(state, tokens=tokens, start_tokens=batched_start_tokens)

        losses_this_test = []
        for step in range(test_steps):
            tokens = jnp.array(test_set[step*batch_size:(step+1)*batch_size], dtype=jnp.uint8)
            loss = test_step(state, tokens=tokens, start_tokens=batched_start_tokens)
            losses_this_test.append(loss)
        average_test_loss = sum(losses_this_test) / len(losses_this_test)
        print(f'epoch {epoch}, test_loss {average_test_loss}')

        n = len(compiles)
        tokens = sample_context(
            state,
            prompt_tokens=[start_token],
            vocab_size=vocab_size,
            context_length=context_length,
            temperature=sample_temperature
        )[0]
        sample_compiles.append(len(compiles) - n)
    return tokens


if __name__ == '__main__':
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(name)
        if name == '/jax/core/compile/backend_compile_duration' else None
    )
    sample_compiles = []
    tokens = main(compiles, sample_compiles)
    print('compilations during each epoch\'s sample_context:', sample_compiles)
    # observed: line 148 jits a new get_logits closure on every call of sample_context:
    #   the transformer compiles again in every epoch although shapes and model never change
    assert sample_compiles[1:] == [1, 1], sample_compiles
    assert tokens.shape == (8,)
