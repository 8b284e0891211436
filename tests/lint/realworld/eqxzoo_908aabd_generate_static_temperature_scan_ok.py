# source: https://github.com/xquantize/eqx-zoo/blob/908aabd7319ab321f027c8a5a9014908ec860835/src/eqx_zoo/generate.py
#   (an individual's zoo of equinox language models: its autoregressive generation loop)
# observed on jax 0.10.2 CPU (equinox 0.13.8): generate runs under eqx.filter_jit with
#   max_new_tokens and temperature as Python scalars, which filter_jit holds static, so the
#   `if max_new_tokens < 1`, `if temperature > 0 and key is None` and `if temperature == 0`
#   tests read Python values, not tracers; the decoding loop is a lax.scan over split keys
#   (one fresh key per token). Repeated calls with the same arguments trace once, greedy
#   decoding matches a step-by-step eager decode, and sampling with a key gives valid
#   tokens. generate is kept as written. Added: a tiny stand-in model (the repository's
#   models are Qwen-style transformers loaded from checkpoints) with the interface the
#   function uses (`init_cache(length)` and `__call__(ids, cache)`), and the __main__ block.
# gap: exemption-vs-JAX
import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Int, PRNGKeyArray


@eqx.filter_jit
def generate(
    model,
    prompt_ids: Int[Array, " prompt"],
    max_new_tokens: int,
    *,
    temperature: float = 0.0,
    key: PRNGKeyArray | None = None,
) -> Int[Array, " max_new_tokens"]:
    """Generate tokens autoregressively with a key/value cache.

    The prompt is processed in a single forward pass, then each new token is produced
    by one cached decoding step inside `jax.lax.scan`. Generation always runs for
    `max_new_tokens` steps; truncate at an end-of-sequence token afterwards if needed.

    Args:
        model: A zoo language model providing `__call__(ids, cache)` and `init_cache`.
        prompt_ids: Token ids of the prompt.
        max_new_tokens: Number of tokens to generate; must be positive.
        temperature: Sampling temperature. `0.0` selects the most likely token (greedy).
        key: PRNG key, required when `temperature > 0`.

    Returns:
        The generated token ids, excluding the prompt.

    Raises:
        ValueError: If `max_new_tokens` is not positive, or sampling without a `key`.
    """
    if max_new_tokens < 1:
        raise ValueError("max_new_tokens must be positive")
    if temperature > 0 and key is None:
        raise ValueError("a PRNG key is required when temperature > 0")
    keys = jax.random.split(jax.random.key(0) if key is None else key, max_new_tokens)

    def pick(logits, k):
        if temperature == 0:
            return jnp.argmax(logits).astype(jnp.int32)
        return jax.random.categorical(k, logits / temperature).astype(jnp.int32)

    cache = model.init_cache(prompt_ids.shape[0] + max_new_tokens)
    logits, cache = model(prompt_ids, cache)
    first = pick(logits[-1], keys[0])

    def step(carry, k):
        token, cache = carry
        logits, cache = model(token[None], cache)
        token = pick(logits[0], k)
        return (token, cache), token

    _, rest = jax.lax.scan(step, (first, cache), keys[1:])
    return jnp.concatenate([first[None], rest])


class _TinyLM(eqx.Module):
    # stand-in: embeds tokens, keeps a running sum of embeddings as its "cache"
    embed: eqx.nn.Embedding
    head: eqx.nn.Linear

    def __init__(self, vocab, dim, *, key):
        k1, k2 = jax.random.split(key)
        self.embed = eqx.nn.Embedding(vocab, dim, key=k1)
        self.head = eqx.nn.Linear(dim, vocab, key=k2)

    def init_cache(self, length):
        return jnp.zeros(self.embed.weight.shape[1])

    def __call__(self, ids, cache):
        h = jax.vmap(self.embed)(ids)
        running = cache + jnp.cumsum(h, axis=0)
        logits = jax.vmap(self.head)(jnp.tanh(running))
        return logits, running[-1]


if __name__ == "__main__":
    traces = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: traces.append(name) if name == "/jax/core/compile/jaxpr_trace_duration" else None
    )
    model = _TinyLM(11, 8, key=jax.random.key(1))
    prompt = jnp.array([1, 2, 3], dtype=jnp.int32)

    out1 = generate(model, prompt, 6)
    n = len(traces)
    out2 = generate(model, prompt, 6)
    assert len(traces) == n, "second identical call traced again"
    assert (out1 == out2).all()

    # greedy decoding agrees with an eager step-by-step decode
    cache = model.init_cache(9)
    logits, cache = model(prompt, cache)
    tok = jnp.argmax(logits[-1]).astype(jnp.int32)
    ref = [int(tok)]
    for _ in range(5):
        logits, cache = model(tok[None], cache)
        tok = jnp.argmax(logits[0]).astype(jnp.int32)
        ref.append(int(tok))
    assert out1.tolist() == ref, (out1, ref)

    sampled = generate(model, prompt, 6, temperature=1.0, key=jax.random.key(7))
    assert sampled.shape == (6,) and bool(((sampled >= 0) & (sampled < 11)).all())
    try:
        generate(model, prompt, 6, temperature=1.0)
    except ValueError:
        pass
    else:
        raise AssertionError("sampling without a key should raise")
    print("ok", out1.tolist(), sampled.tolist())
