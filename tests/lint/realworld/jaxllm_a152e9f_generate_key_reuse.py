# source: https://github.com/speed1313/jax-llm/blob/a152e9fee5fd23e97455c519150b0a6d7e792d0c/src/jax_llm/utils.py (generate; NanoLM from src/jax_llm/model.py and the calling code from src/jax_llm/generate.py at the same commit; replaced in 12e8fb4d74ad069a851c2b44168bee1faa596cd4 "fix generate" by top_k_generate, which carries the key through lax.scan and splits it every step)
# observed on jax 0.10.2 CPU: every generated token is drawn with the same key
# observed: line 105 the key handed to jax.random.categorical is identical at every step of the loop (recorded by wrapping jax.random.categorical), so each token reuses the same random numbers
# gap: flow-sensitive
# added: imports; the trained params/config/tokenizer of generate.py are replaced by a small random-init NanoLM and a char vocabulary; __main__ block added.
import functools

import jax
import jax.numpy as jnp
import flax.linen as nn


class NanoLM(nn.Module):
    """NanoLM model."""

    vocab_size: int = 50304
    num_layers: int = 4
    num_heads: int = 4
    head_size: int = 32
    dropout_rate: float = 0.2
    embed_size: int = 128
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

            x = x + nn.Sequential(
                [
                    nn.Dense(4 * self.embed_size),
                    nn.relu,
                    nn.Dropout(self.dropout_rate, deterministic=not training),
                    nn.Dense(self.embed_size),
                ]
            )(nn.LayerNorm()(x))

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


def generate(
    model,
    params,
    key,
    idx,
    max_new_tokens: int,
    context_size: int,
    temperature: float = 0.0,
    top_k=None,
):
    """
    Generate new tokens from a given context
        temperature: 0.0 means greedy sampling, > 0.0 means sampling with temperature
        top_k: if not None, only sample from the top k most likely tokens
    """
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -context_size:]
        logits = model.apply(params, idx_cond, training=False)
        logits = logits[:, -1, :]

        if top_k is not None:
            top_logits, _ = jax.lax.top_k(logits, top_k)
            min_val = top_logits[:, -1]
            logits = jnp.where(logits < min_val, -jnp.inf, logits)

        if temperature > 0.0:
            logits = logits / temperature
            idx_next = jax.random.categorical(key, logits, shape=(1,), axis=-1)  # expect: JIT502
            idx_next = idx_next[:, None]
        else:
            idx_next = jnp.argmax(logits, axis=-1, keepdims=True)

        idx = jnp.concatenate([idx, idx_next], axis=-1)
    return idx


if __name__ == "__main__":
    itos = list("abcdefghijklmnop")
    stoi = {c: i for i, c in enumerate(itos)}
    config = dict(vocab_size=len(itos), num_layers=1, num_heads=2, head_size=8,
                  dropout_rate=0.2, embed_size=16, block_size=16)
    model = NanoLM(**config)
    batch = jnp.array([stoi[c] for c in "abc"]).reshape(1, -1)
    params = model.init(jax.random.PRNGKey(1), batch, training=False)
    key = jax.random.PRNGKey(0)
    key, subkey = jax.random.split(key)

    used_keys = []
    _categorical = jax.random.categorical
    def recording_categorical(key, *args, **kwargs):  # harness: record the key of every draw
        used_keys.append(jax.random.key_data(key) if jnp.issubdtype(key.dtype, jax.dtypes.prng_key) else key)
        return _categorical(key, *args, **kwargs)
    jax.random.categorical = recording_categorical
    try:
        token_ids = generate(
            model=model,
            params=params,
            key=subkey,
            idx=batch,
            max_new_tokens=5,
            context_size=config["block_size"],
            temperature=1.0,
            top_k=None,
        )
    finally:
        jax.random.categorical = _categorical
    print("Output:", "".join(itos[i] for i in token_ids.flatten().tolist()))
    assert len(used_keys) == 5
    assert all((k == used_keys[0]).all() for k in used_keys)  # one key for all five tokens
