# source: https://github.com/Vadimbuildercxx/mamba_fast_simple/blob/4548992ad73bcadcc66977e342d05376396ae222/utils.py
# observed on jax 0.10.2 CPU: every generate() call recompiles both jitted helpers; the sampling key is never split, so every step draws with the same key; with deterministic=False time.time() is read only at trace time
# observed: line 74 with deterministic=False, time.time() is called once (at trace) for 8 generated tokens, so the time-seeded key is frozen and all 8 tokens are the same
# observed: line 83 a second identical generate() call backend-compiles inference_model again (fresh local function each call)
# observed: line 84 a second identical generate() call backend-compiles inference_step again
# observed: line 98 the same key is used for every token: with uniform logits all 8 sampled tokens are identical (mmmmmmmm)
# gap: per-call-recompile
# added: TinyLM (a two-layer linen stand-in for the repo's Mamba model, which needs einops and HF weights),
#   CharTokenizer (stand-in for the HF tokenizer), and the __main__ block; generate() and left_pad_tensor()
#   are as in the repo.
import flax.nnx
import jax.numpy as jnp
import jax 
import flax
import time

import numpy as np
import flax.linen as nn


def left_pad_tensor(tensor, max_tokens, padding_value=0):
    """
    Left pads a tensor to the nearest power of two along the second dimension.
    
    Args:
        tensor (jax.numpy.ndarray): Tensor of shape (batch_size, seq_len).
        padding_value (int): Value used for padding (e.g., pad_token_id).
        
    Returns:
        jax.numpy.ndarray: Padded tensor to nearest power of two.
    """
    batch_size, max_seq_len = tensor.shape
    # Find the nearest power of two greater than or equal to max_seq_len
    pad_size = max_seq_len + max_tokens

    # Calculate padding needed on the left side
    pad_width = [(0, 0), (pad_size - max_seq_len, 0)]  # Padding on the second dimension (seq_len)
    
    # Apply left padding to the tensor
    padded_tensor = jnp.pad(tensor, pad_width, mode="constant", constant_values=padding_value)
    
    return padded_tensor


def generate(
        model: flax.nnx.Module,
        key,
        params,
        tokenizer,
        prompt: str,
        sample:bool = True,
        top_k: int = 40,
        n_tokens_to_gen: int = 50,
        pad = True,
        pad_token_id: int = 1,
        do_jit: bool = True,
        deterministic: bool = True):
    
    # JIT-compile the inference function
    def inference_model(params, x):
        return model.apply(params, x)
    
    def inference_step(key, next_token_logits):
        probs = jax.nn.softmax(next_token_logits, axis=-1)
        (batch, vocab_size) = probs.shape
        
        if top_k is not None:
            (values, indices) = jax.lax.top_k(probs, k=top_k)
            probs = jnp.where(probs < values[:, -1, None], 0, probs)
            probs = probs / probs.sum(axis=1, keepdims=True)
        
        if sample:
            if not deterministic:
                current_time = int(time.time())  # expect: JIT204
                key = jax.random.PRNGKey(current_time)
            next_indices = jax.random.categorical(key, jnp.log(probs), shape=(1,))
        else:
            next_indices = jnp.argmax(probs, axis=-1)
        
        return next_indices
    
    if do_jit:
        inference_model_fn = jax.jit(inference_model)  # expect: JIT301
        inference_step_fn = jax.jit(inference_step)  # expect: JIT301
    else:
        inference_model_fn = inference_model
        inference_step_fn = inference_step

    if pad:
        input_ids = left_pad_tensor(jnp.array(tokenizer(prompt, return_tensors='np').input_ids), n_tokens_to_gen, pad_token_id)
    else: 
        input_ids = jnp.array(tokenizer(prompt, return_tensors='np').input_ids)
    
    for token_n in range(n_tokens_to_gen):
        indices_to_input = input_ids

        next_token_logits = inference_model_fn(params, jax.lax.stop_gradient(indices_to_input))[:, -1]
        next_indices = inference_step_fn(key, next_token_logits)  # expect: JIT502
        if pad:
            input_ids = jnp.concat([input_ids[:,1:], next_indices[:, jnp.newaxis]], axis=1)
        else:
            input_ids = jnp.concat([input_ids, next_indices[:, jnp.newaxis]], axis=1)

    output_completions = [tokenizer.decode(output.tolist()) for output in input_ids][0]
    
    return output_completions


class TinyLM(nn.Module):
    vocab_size: int = 16

    @nn.compact
    def __call__(self, input_ids):
        x = nn.Embed(self.vocab_size, 8)(input_ids)
        return nn.Dense(self.vocab_size)(x)


class CharTokenizer:
    class _Enc:
        def __init__(self, ids):
            self.input_ids = ids

    def __call__(self, text, return_tensors='np'):
        return self._Enc(np.array([[ord(c) % 16 for c in text]], dtype=np.int32))

    def decode(self, ids):
        return "".join(chr(ord('a') + i) for i in ids)


if __name__ == "__main__":
    import traceback
    model = TinyLM()
    params = model.init(jax.random.PRNGKey(0), jnp.ones((1, 4), jnp.int32))
    # zero parameters -> uniform logits over 16 tokens, so every draw depends only on the key
    params = jax.tree_util.tree_map(jnp.zeros_like, params)
    tok = CharTokenizer()
    n = 8

    # JIT502: the same key is passed to every sampling step
    out = generate(model, jax.random.PRNGKey(42), params, tok, "abc", top_k=None, n_tokens_to_gen=n)
    gen = out[-n:]
    print("sampled tokens (deterministic=True):", gen)
    assert len(set(gen)) == 1, gen  # every step drew the same token from a uniform distribution
    keys = jax.random.split(jax.random.PRNGKey(42), n)
    fresh = [int(jax.random.categorical(k, jnp.zeros((1, 16)), shape=(1,))[0]) for k in keys]
    assert len(set(fresh)) > 1, fresh

    # JIT204: time.time() runs once, at trace time, not once per token
    calls = []
    import types
    real_time_module = time
    def counting_time():
        calls.append(1)
        return real_time_module.time()
    # swap only this module's `time` name, so JAX's own time.time() calls are not counted
    globals()["time"] = types.SimpleNamespace(time=counting_time)
    try:
        out = generate(model, jax.random.PRNGKey(42), params, tok, "abc", top_k=None,
                       n_tokens_to_gen=n, deterministic=False)
    finally:
        globals()["time"] = real_time_module
    print("time.time() calls for", n, "tokens:", len(calls), "tokens:", out[-n:])
    assert len(calls) == 1, calls
    assert len(set(out[-n:])) == 1

    # JIT301: every call of generate() jits two fresh local functions -> compiles again
    compiles = []
    def listener(event, duration, **kw):
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(event)
    jax.monitoring.register_event_duration_secs_listener(listener)
    generate(model, jax.random.PRNGKey(1), params, tok, "abc", top_k=None, n_tokens_to_gen=n)
    first = len(compiles)
    generate(model, jax.random.PRNGKey(1), params, tok, "abc", top_k=None, n_tokens_to_gen=n)
    second = len(compiles) - first
    print("backend compiles: first call", first, "second identical call", second)
    assert second >= 2, (first, second)
    print("OK")
