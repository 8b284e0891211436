# source: https://github.com/jackopenn/jaximus/blob/1853fdf40af46013937bfe26a6157b21df93989d/generate.py
#   (an individual's flax nnx LLM training repository; train.py calls generate(model, tokenizer)
#   every cfg.generate_every steps to print samples of the model being trained)
# observed on jax 0.10.2 CPU: generate calls _make_sample_fn(model) on every call, which jits
#   a fresh `sample` closure, so every evaluation traces and compiles sample again for every
#   prompt length (the 7 prompts have 5 lengths: 5 compilations per call, 5 more on the second
#   call, where a sample jitted once would compile none); and sample's default
#   key=jax.random.PRNGKey(0) is the key of every prompt of every call: prompts of the same
#   length draw the same Gumbel noise (a model with uniform logits continues the three
#   6-token prompts with the same tokens), and JAX's key-reuse checker (typed keys) raises
#   KeyReuseError at the second prompt's call of sample.
#   Changed: `jax.get_mesh()` -> `jax.sharding.get_mesh()` (the current spelling).
#   Removed: the unused imports of transformers' AutoTokenizer, wandb and orbax, and the
#   commented-out checkpoint loading of the __main__ block (it printed "TODO: add generation").
#   Added: a stand-in GPT (an nnx embedding and output layer), a stand-in tokenizer (one token
#   per word, GPT-2's convention of a missing pad token), and a __main__ block that calls
#   generate twice, as the training loop does.
# gap: per-call-recompile
from typing import List
from functools import partial
import jax
from jax import numpy as jnp
from jax.sharding import PartitionSpec as P, NamedSharding
from flax import nnx


def _make_sample_fn(model):
    """Create a jitted sample function that works with any sharding strategy."""
    
    @partial(  # expect: JIT301
        jax.jit,
        static_argnames=("prompt_length", "sample_length", "top_k", "temperature"),
        donate_argnums=(0,)
    )
    def sample(batch, mask, prompt_length, sample_length, top_k, temperature, key=jax.random.PRNGKey(0)):

        def body_fn(i, carry):
            batch, mask, sample_idx, key = carry
            key, subkey = jax.random.split(key)
        
            logits = model(batch, mask)
            logits = logits[:, sample_idx, :].astype(jnp.float32) / temperature
            values, _ = jax.lax.top_k(logits, k=top_k)
            kth_value = values[:, -1]
            logits = jnp.where(logits < kth_value[:, jnp.newaxis], -jnp.inf, logits)
            next_token = jax.random.categorical(subkey, logits)
            sample_idx += 1
            batch = batch.at[:, sample_idx].set(next_token)
            mask = mask.at[:, sample_idx].set(jnp.ones_like(next_token, dtype=jnp.bool_))
            return batch, mask, sample_idx, key
        
        sample_idx = prompt_length - 1
        batch, _, _, _ = jax.lax.fori_loop(0, sample_length, body_fn, (batch, mask, sample_idx, key))
        return batch
    
    return sample


def _replicate_array(arr):
    """Replicate array across all devices (for generation with TP/sharded models)."""
    mesh = jax.sharding.get_mesh()
    if mesh is None or mesh.empty:
        # No mesh set, just return as-is (single device)
        return arr
    # Fully replicated sharding - same data on all devices
    sharding = NamedSharding(mesh, P())
    return jax.device_put(arr, sharding)


def _gather_to_host(arr):
    """Gather a potentially sharded array to host memory as numpy."""
    # This handles both sharded and replicated arrays
    return jnp.asarray(arr)


def generate(
    model,
    tokenizer,
    prompts=[
        "The meaning of life is",
        "Hello, I'm a language model",
        "5+7=",
        "five plus seven is",
        "The capital of France is",
        "The answer to the ultimate question of life, the universe, and everything is",
        "Once upon a time, there was a",
    ],
    max_length=64,
    n_samples=5,
    top_k=10,
    temperature=1.0
):
    """
    Generate samples from the model. Works with any sharding strategy (DP, TP, FSDP).
    
    For TP/sharded models: inputs are replicated across all devices, the model
    computes with its sharded weights, and outputs are gathered back.
    
    IMPORTANT for multi-host: ALL processes must call this function (don't guard
    with `if main_process`). For TP, the forward pass requires all hosts. Returns
    results only on main process (None on others).
    """
    main_process = jax.process_index() == 0
    sample = _make_sample_fn(model)

    if not tokenizer.pad_token:
        tokenizer.pad_token = tokenizer.bos_token

    # create a batch of size (n_samples * len(prompts), max_length) left padded with pad_token_id
    prompts_tokens = tokenizer.batch_encode_plus(prompts)['input_ids']
    prompts_tokens = [jnp.concatenate([jnp.array([tokenizer.bos_token_id]), jnp.array(x)]) for x in prompts_tokens]

    prompt_token_lengths = [x.shape[0] for x in prompts_tokens]

    prompts_tokens = [jnp.pad(x, (0, max_length - x.shape[0]), mode='constant', constant_values=tokenizer.pad_token_id) for x in prompts_tokens]
    prompts_tokens = [jnp.repeat(x[jnp.newaxis, :], n_samples, axis=0) for x in prompts_tokens]
    masks = [x != tokenizer.pad_token_id for x in prompts_tokens]
    masks = [mask.at[:, 0].set(True) for mask in masks]

    generated_tokens = []
    for prompt_tokens, mask, prompt_token_length in zip(prompts_tokens, masks, prompt_token_lengths):
        sample_length = max_length - prompt_token_length
        # Replicate inputs across all devices (required for TP where model is sharded)
        prompt_tokens = _replicate_array(prompt_tokens)
        mask = _replicate_array(mask)
        result = sample(prompt_tokens, mask, prompt_token_length, sample_length, top_k, temperature)  # expect: JIT502
        # Gather result back (in case output is sharded)
        generated_tokens.append(_gather_to_host(result))

    # Only main process returns decoded results
    if not main_process:
        return None

    decoded_tokens = tokenizer.batch_decode(jnp.concatenate(generated_tokens, axis=0))
    
    samples = {}
    for i in range(0, n_samples * len(prompts), n_samples):
        prompt_idx = i // n_samples
        for j in range(n_samples):
            samples[prompts[prompt_idx]] = samples.get(prompts[prompt_idx], []) + [decoded_tokens[i + j]]
    
    return samples


# --- stand-ins (added) ---
class TinyGPT(nnx.Module):
    def __init__(self, vocab_size, dim, rngs):
        self.embed = nnx.Embed(vocab_size, dim, rngs=rngs)
        self.out = nnx.Linear(dim, vocab_size, rngs=rngs)

    def __call__(self, x, mask):
        h = self.embed(x) * mask[..., None]
        h = jnp.cumsum(h, axis=1)
        return self.out(h)


class WordTokenizer:
    bos_token = "<|endoftext|>"
    bos_token_id = 0

    def __init__(self):
        self.pad_token = None
        self.vocab = {self.bos_token: 0}

    @property
    def pad_token_id(self):
        return self.vocab[self.pad_token]

    def batch_encode_plus(self, texts):
        return {"input_ids": [[self.vocab.setdefault(w, len(self.vocab)) for w in t.split()] for t in texts]}

    def batch_decode(self, ids):
        inv = {i: w for w, i in self.vocab.items()}
        return [" ".join(inv.get(int(i), f"<{int(i)}>") for i in row) for row in ids]


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    tokenizer = WordTokenizer()
    model = TinyGPT(128, 16, nnx.Rngs(0))

    # the training loop calls generate every cfg.generate_every steps
    first = len(compiles)
    generate(model, tokenizer)
    after_first = len(compiles)
    generate(model, tokenizer)
    after_second = len(compiles)
    # observed: line 30 jits a fresh sample on every generate call: it compiles again for
    # each of the 5 prompt lengths on the second call
    assert after_first - first >= 5, (first, after_first)
    assert after_second - after_first >= 5, (after_first, after_second)

    # a model whose logits are uniform: the samples are the key's draws alone
    model.out.kernel[...] = jnp.zeros_like(model.out.kernel[...])
    model.out.bias[...] = jnp.zeros_like(model.out.bias[...])
    samples = generate(model, tokenizer, n_samples=3)
    six = ["The meaning of life is", "Hello, I'm a language model", "The capital of France is"]
    continuations = [[s.split()[6:] for s in samples[p]] for p in six]
    # observed: line 126 hands every prompt the same default key PRNGKey(0): the three
    # 6-token prompts are continued with the same tokens
    assert continuations[0] == continuations[1] == continuations[2], continuations
    assert continuations[0][0] != continuations[0][1]  # the rows of one prompt differ
    print("ok")
