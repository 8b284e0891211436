# source: https://github.com/martin-marek/picodo-finetune/blob/534e91536e0ba15e07c9cf72f1b02d4d3fbf5303/data.py
#   (an individual's Gemma fine-tuning repository: benchmark_model of data.py, which samples
#   completions for the MATH eval set batch by batch with `sample` of sampler.py at the same commit)
# observed on jax 0.10.2 CPU: benchmark_model splits `key` once into key_decoding and
#   key_questions and then hands the same key_decoding to the jitted `sample` for every eval
#   batch, so every batch starts its while_loop from the same key and its rows draw the same
#   top-p noise at every step as the rows of the batch before: with one prompt in every eval
#   row, batches 2 and 3 repeat batch 1's completions token for token (three fresh keys do not);
#   JAX's key-reuse checker raises at the call on the second batch.
#   sampler.py is kept as written (its `if temperature == 0:` reads the static temperature).
#   Added: stand-ins for math_verify's parse/verify (string compare), for the sentencepiece
#   vocab (pad_id/eos_id/DecodeIds) and for the Gemma model (an nnx module with in_embed, a
#   running-sum "kv cache" of fixed shape, init_kv_cache and __call__(tokens, kv_cache)), its
#   embedding placed on a one-device mesh with a 'data' axis as finetune.py shards it; the
#   __main__ block with a small eval set (one prompt in all six rows) and the check. load_datasets (HF datasets) is left out.
# gap: other
import jax
import jax.numpy as jnp
import flax
from flax import nnx
import numpy as np
from functools import partial
from jax.sharding import NamedSharding, PartitionSpec as P
from tqdm.auto import tqdm


def parse(text):  # stand-in for math_verify.parse
    return text.strip()


def verify(gold, parsed):  # stand-in for math_verify.verify
    return gold == parsed


## sampler.py
@flax.struct.dataclass
class SamplingState:
    key: jax.Array
    step: jnp.int32
    tokens: jnp.ndarray # [B, T]
    kv_cache: dict
    done: jnp.ndarray # [B]


def _sample_top_p(key, probs, p=0.95):
    """Sample a token using top-p sampling.
    https://github.com/google/flax/blob/cca78723892c539b42c261d2625168d39b61c495/examples/gemma/sampler.py#L38"""
    probs_sorted, indices = jax.lax.top_k(probs, k=probs.shape[-1])
    cumsum_probs = jnp.cumsum(probs_sorted, axis=-1)
    mask = cumsum_probs - probs_sorted > p
    probs_sorted = jnp.where(mask, 0.0, probs_sorted)
    probs_sorted /= jnp.sum(probs_sorted, axis=-1, keepdims=True)
    next_token = jax.random.categorical(key, logits=jnp.log(probs_sorted))
    next_token = jnp.take_along_axis(indices, next_token[..., None], axis=-1)
    next_token = jnp.squeeze(next_token, axis=-1)
    return next_token


def _sample_step(state, model_graphdef, model_state, pad_id, eos_id, temperature=1):
    model = nnx.merge(model_graphdef, model_state)

    # sample next token
    key, key_sampling = jax.random.split(state.key)
    input_token = state.tokens[:, state.step, None] # [B, 1]
    logits, kv_cache = model(input_token, state.kv_cache) # [B, 1, V]
    if temperature == 0:
        sampled_token = logits[:, 0, :].argmax(1) # [B]
    else:
        probs = jax.nn.softmax(logits[:, 0, :] / temperature, axis=-1) # [B, V]
        sampled_token = _sample_top_p(key_sampling, probs)

    # update buffer
    next_token = state.tokens[:, state.step+1]
    update_token = jnp.where((~state.done) & (next_token==pad_id), sampled_token, next_token)
    tokens = state.tokens.at[:, state.step+1].set(update_token)

    # check if sampling is done
    done = state.done | ((next_token==pad_id) & (sampled_token==eos_id))

    return SamplingState(key, state.step+1, tokens, kv_cache, done)


@partial(jax.jit, static_argnames=('model_graphdef', 'temperature'))
def sample(key, model_graphdef, model_state, tokens, temperature=1, pad_id=0, eos_id=1):
    model = nnx.merge(model_graphdef, model_state)
    B, T = tokens.shape

    # initialize state
    state = SamplingState(
        key=key,
        step=0,
        tokens=tokens,
        kv_cache=model.init_kv_cache(B, T),
        done=jnp.zeros([B], dtype=jnp.bool_),
    )

    # sample next token inside a while loop
    step_fn = lambda state: _sample_step(state, *nnx.split(model), pad_id, eos_id, temperature)
    cond_fn = lambda state: (state.step < T) & jnp.any(~state.done)
    state = jax.lax.while_loop(cond_fn, step_fn, state)

    return state.tokens


## data.py
def benchmark_model(key, model, tokens, problems_eval, solutions_eval, vocab, batch_size, n_eval_samples=None, temperature=1, print_output=True):
    pad_id = vocab.pad_id()
    eos_id = vocab.eos_id()
    key_decoding, key_questions = jax.random.split(key)
    mesh = model.in_embed.embedding.value.sharding.mesh
    if n_eval_samples is None: n_eval_samples = len(tokens)
    n_batches = n_eval_samples // batch_size
    sample_idxs = jax.random.choice(key_questions, len(tokens), shape=[n_batches, batch_size], replace=False)
    lengths_list = []
    correct_list = []
    finished_list = []
    pbar = tqdm(sample_idxs, desc='Sampling') if (jax.process_index() == 0) else sample_idxs
    for batch_idx in pbar:
        # sample tokens
        input_tokens_batch = jax.device_put(tokens[batch_idx], NamedSharding(mesh, P('data', None)))
        output_tokens_batch = sample(key_decoding, *nnx.split(model), input_tokens_batch, temperature)  # expect: JIT502

        # extract output sequences
        completions_tokens = []
        for in_seq, out_seq in zip(input_tokens_batch, output_tokens_batch):
            out_seq = out_seq[jnp.argmax(in_seq==pad_id):]
            if jnp.any(out_seq==pad_id): out_seq = out_seq[:jnp.argmax(out_seq==pad_id)]
            completions_tokens += [out_seq.tolist()]

        # eval completions
        completions_text = vocab.DecodeIds(completions_tokens)
        for sample_idx, completion_tokens, completion_text in zip(batch_idx, completions_tokens, completions_text):
            if sample_idx < len(problems_eval):
                problem = problems_eval[sample_idx]
                gold = solutions_eval[sample_idx]
                parsed = parse(completion_text)
                finished = eos_id in completion_tokens
                correct = verify(parse(gold), parsed)
                lengths_list += [len(completion_tokens)]
                finished_list += [finished]
                correct_list += [correct]
                if print_output:
                    print('------------')
                    print(f'PROMPT:\n{problem}\nCOMPLETION:\n{completion_text}\nPARSED: {parsed}\nGOLD: {gold}\nCORRECT: {correct}')

    return dict(length=np.mean(lengths_list), finished=np.mean(finished_list), accuracy=np.mean(correct_list))


class _Vocab:  # stand-in for the sentencepiece vocab; keeps what it decodes, per batch
    def __init__(self): self.decoded = []
    def pad_id(self): return 0
    def eos_id(self): return 1
    def DecodeIds(self, ids_list):
        self.decoded.append([list(ids) for ids in ids_list])
        return [" ".join(map(str, ids)) for ids in ids_list]


class _TinyLM(nnx.Module):  # stand-in for the Gemma transformer: same call interface
    def __init__(self, vocab_size, dim, mesh, rngs):
        self.in_embed = nnx.Embed(vocab_size, dim, rngs=rngs)
        self.in_embed.embedding.value = jax.device_put(self.in_embed.embedding.value, NamedSharding(mesh, P()))
        self.out = nnx.Linear(dim, vocab_size, rngs=rngs)
        self.dim = dim

    def init_kv_cache(self, B, T):
        return {'h': jnp.zeros([B, self.dim])}

    def __call__(self, x, kv_cache):
        h = kv_cache['h'] + self.in_embed(x[:, 0])
        return self.out(h)[:, None, :], {'h': h}


if __name__ == "__main__":
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ('data',))
    V, T = 16, 12
    model = _TinyLM(V, 8, mesh, nnx.Rngs(0))
    # six eval rows holding one and the same prompt (as many problems of a set can share a
    # prompt's opening): with a fresh key per batch, each batch would sample its own completions
    tokens_eval = np.zeros([6, T], dtype=np.int32)
    tokens_eval[:, :3] = [2, 7, 5]
    problems_eval = np.array([f"problem {i}" for i in range(6)])
    solutions_eval = np.array([f"{i}" for i in range(6)])

    vocab = _Vocab()
    metrics = benchmark_model(jax.random.PRNGKey(3), model, tokens_eval, problems_eval, solutions_eval,
                              vocab, batch_size=2, temperature=1, print_output=False)
    print(metrics)
    # observed: line 121 hands every eval batch the same key_decoding: the two rows of a batch
    # differ (one draw gives each row its own noise), but batch 2 and batch 3
    # repeat batch 1's completions token for token
    batches = vocab.decoded
    assert len(batches) == 3
    print(batches)
    assert batches[0][0] != batches[0][1]
    assert batches[1] == batches[0] and batches[2] == batches[0]
    # the same prompts sampled from three different keys do not repeat
    graphdef, state = nnx.split(model)
    fresh = [sample(k, graphdef, state, jnp.asarray(tokens_eval[:2]), 1).tolist()
             for k in jax.random.split(jax.random.PRNGKey(4), 3)]
    assert not (fresh[0] == fresh[1] == fresh[2])
    print("all 3 batches sampled the same completions from one key")
