# source: https://github.com/martin-marek/picodo-finetune/blob/a5cd565073563711593cecc2b0fa5c516c31cddd/sampler.py
#   (an individual's Gemma fine-tuning repository: its first KV-cache greedy sampler)
# observed on jax 0.10.2 CPU: sample runs a lax.while_loop whose body calls the jitted
#   _sample_step with the model split by nnx.split (graphdef static, state traced); the step
#   reads state.step as a traced index into a fixed-size token buffer (dynamic indexing and
#   .at[].set, no traced shape), and stops rows at eot with jnp.where. It runs clean: the
#   decoded tokens match a step-by-step eager greedy decode of the same model, and a second call
#   of sample reuses _sample_step's compiled step (its cache does not grow). The eager post-processing
#   (jnp.argmax/jnp.any on concrete arrays) runs outside any trace.
#   sampler.py is kept as written. Added: a stand-in for the Gemma transformer (an nnx module
#   with init_kv_cache(B, T) and __call__(tokens, kv_cache), the "cache" a running sum of
#   token embeddings of fixed shape) and the __main__ block with its checks.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
import flax
from flax import nnx
from functools import partial


@flax.struct.dataclass
class SamplingState:
    step: jnp.int32
    tokens: jnp.ndarray # [B, T]
    kv_cache: dict
    done: jnp.ndarray # [B]


@partial(jax.jit, static_argnames=('model_graphdef'))
def _sample_step(state, model_graphdef, model_state, pad_id, eot_id):

    # we pass model_state as non-static arg, to avoid compiling it
    model = nnx.merge(model_graphdef, model_state)

    # sample next token
    last_token = state.tokens[:, state.step, None] # [B, 1]
    logits, kv_cache = model(last_token, state.kv_cache) # [B, 1, V]
    sampled_token = jnp.argmax(logits, axis=-1)[:, 0] # [B]

    # update buffer
    next_token = state.tokens[:, state.step+1]
    update_token = jnp.where((~state.done) & (next_token==pad_id), sampled_token, next_token)
    tokens = state.tokens.at[:, state.step+1].set(update_token)

    # check if sampling is done
    done = state.done | ((next_token==pad_id) & (sampled_token==eot_id))

    return SamplingState(state.step+1, tokens, kv_cache, done)


def sample(model, tokens, pad_id=0, eot_id=106):
    B, T = tokens.shape

    # initialize state
    state = SamplingState(
        step=0,
        tokens=tokens,
        kv_cache=model.init_kv_cache(B, T),
        done=jnp.zeros([B], dtype=jnp.bool_),
    )

    # sample next token inside a while loop
    step_fn = lambda state: _sample_step(state, *nnx.split(model), pad_id, eot_id)
    cond_fn = lambda state: (state.step < T) & jnp.any(~state.done)
    state = jax.lax.while_loop(cond_fn, step_fn, state)

    # extract output sequences
    outputs = []
    for in_seq, out_seq in zip(tokens, state.tokens):
        out_seq = out_seq[jnp.argmax(in_seq==pad_id):]
        if jnp.any(out_seq==pad_id): out_seq = out_seq[:jnp.argmax(out_seq==pad_id)]
        outputs += [out_seq.tolist()]

    return outputs


class _TinyLM(nnx.Module):  # stand-in for the Gemma transformer: same call interface
    def __init__(self, vocab_size, dim, rngs):
        self.in_embed = nnx.Embed(vocab_size, dim, rngs=rngs)
        self.out = nnx.Linear(dim, vocab_size, rngs=rngs)
        self.dim = dim

    def init_kv_cache(self, B, T):
        return {'h': jnp.zeros([B, self.dim])}

    def __call__(self, x, kv_cache):
        h = kv_cache['h'] + self.in_embed(x[:, 0])
        return self.out(h)[:, None, :], {'h': h}


if __name__ == "__main__":
    V, T, EOT = 12, 10, 11
    model = _TinyLM(V, 8, nnx.Rngs(1))
    prompts = [[2, 5, 7], [3, 4], [9, 2, 6, 8]]
    tokens = jnp.array([p + [0] * (T - len(p)) for p in prompts], dtype=jnp.int32)

    outputs = sample(model, tokens, eot_id=EOT)
    print(outputs)

    # eager reference: feed the prompt, then greedy tokens, one by one
    for p, out in zip(prompts, outputs):
        cache = model.init_kv_cache(1, T)
        seq = list(p)
        for t in range(T - 1):
            logits, cache = model(jnp.array([[seq[t]]]), cache)
            if t + 1 >= len(seq):
                nxt = int(jnp.argmax(logits[0, 0]))
                seq.append(nxt)
                if nxt == EOT:
                    break
        assert out == seq[len(p):], (out, seq)

    # the jitted step traces once per sample call; a second call with the same shapes reuses it
    before = _sample_step._cache_size()
    assert sample(model, tokens, eot_id=EOT) == outputs
    assert _sample_step._cache_size() == before
    print("while_loop sampler matches the eager greedy decode")
