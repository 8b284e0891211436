# source: https://github.com/Physical-Intelligence/openpi/blob/1824d36effa1512660ef6f01c06fbfbff6f8e40c/src/openpi/models/pi0_fast.py
#   (Pi0FAST.sample_actions after commit 1824d36 "selective fix for nonzero temperature for
#   FAST models with jax JIT", merged in openpi#550: the rng travels in the while_loop carry
#   and is split every step, and the temperature branch is a lax.cond; module_jit from
#   src/openpi/shared/nnx_utils.py)
# observed on jax 0.10.2 CPU: the module_jit-ed sample_actions runs with a traced
#   temperature ({"temperature": 0.7} passed as **sample_kwargs, as Policy.infer does) and
#   draws different tokens at different steps. Kept verbatim: put_along_last_axis,
#   module_jit (its docstring and ParamSpec annotations dropped), and sample_actions from
#   "prepare decoding" on (its signature's type annotations dropped). Stand-ins (openpi, einops and
#   the PaliGemma weights are not used): the prefix half of sample_actions (observation
#   preprocessing, embedding, left-to-right alignment and the prefill forward pass) is
#   replaced by `self._prefill`, and `self.PaliGemma.llm` is a stand-in whose decode step
#   returns flat logits (EOS masked out) over an 8-token vocabulary; the observation is a
#   dummy array.
# gap: other
import functools
import inspect

import flax.nnx as nnx
import jax
import jax.numpy as jnp

PALIGEMMA_EOS_TOKEN = 1
VOCAB = 8


def put_along_last_axis(arr, indices, values):
    """Like np.put_along_axis(..., axis=-1), since jax is missing it."""
    assert arr.ndim == indices.ndim == values.ndim, (arr.ndim, indices.ndim, values.ndim)
    onehot = jax.nn.one_hot(indices, arr.shape[-1], dtype=values.dtype)
    put_mask = jnp.einsum("...i,...in->...n", jnp.ones(values.shape, jnp.int32), onehot)
    put_values = jnp.einsum("...i,...in->...n", values, onehot)
    return jnp.where(put_mask, put_values, arr)


def module_jit(meth, *jit_args, **jit_kwargs):
    if not (inspect.ismethod(meth) and isinstance(meth.__self__, nnx.Module)):
        raise ValueError("module_jit must only be used on bound methods of nnx.Modules.")

    graphdef, state = nnx.split(meth.__self__)

    def fun(state: nnx.State, *args, **kwargs):
        module = nnx.merge(graphdef, state)
        return meth.__func__(module, *args, **kwargs)

    jitted_fn = jax.jit(fun, *jit_args, **jit_kwargs)

    @functools.wraps(meth)
    def wrapper(*args, **kwargs):
        return jitted_fn(state, *args, **kwargs)

    return wrapper


class PaliGemmaStandIn(nnx.Module):
    # stand-in for the PaliGemma LLM: flat logits over VOCAB tokens, EOS never sampled
    def llm(self, token=None, embed_only=False, embedded_prefix=None, mask=None,
            positions=None, decode=False, kv_cache=None):
        if embed_only:
            return jax.nn.one_hot(token, VOCAB)
        logits = jnp.zeros(embedded_prefix.shape[:2] + (VOCAB,))
        logits = logits.at[..., PALIGEMMA_EOS_TOKEN].set(-1e9)
        return logits, kv_cache, None


class Pi0FAST(nnx.Module):
    def __init__(self):
        self.PaliGemma = PaliGemmaStandIn()

    def _prefill(self, observation, max_decoding_steps):
        # stand-in for the prefix half of sample_actions
        batch, prefill_size = observation.shape[0], 4
        prefill_len = jnp.full((batch,), prefill_size)
        prefix_start = prefill_size - prefill_len
        prefix_logits = jnp.zeros((batch, prefill_size, VOCAB)).at[..., PALIGEMMA_EOS_TOKEN].set(-1e9)
        kv_cache = jnp.zeros((batch, prefill_size + max_decoding_steps))
        return prefix_logits, kv_cache, prefill_size, prefill_len, prefix_start

    def sample_actions(self, rng, observation, *, max_decoding_steps=256, temperature=0.0):
        prefix_logits, kv_cache, prefill_size, prefill_len, prefix_start = self._prefill(
            observation, max_decoding_steps)

        # prepare decoding -- final logit decodes the first token
        last_logit = prefix_logits[:, -1:]
        output_tokens = jnp.zeros((last_logit.shape[0], max_decoding_steps))

        def step(carry):
            rng, last_logit, output_tokens, cache, _, step = carry

            # Sample token from last logit
            # Split RNG for this step
            rng, rng_step = jax.random.split(rng)
            token = jax.lax.cond(
                temperature > 0.0,
                lambda _: jax.random.categorical(rng_step, last_logit / temperature, axis=-1),
                lambda _: jnp.argmax(last_logit, axis=-1),
                operand=None,
            )
            output_tokens = put_along_last_axis(output_tokens, jnp.broadcast_to(step, (token.shape[0], 1)), token)

            # Check for early stopping --> stop if all batch elements have EOS token
            has_eos = jnp.any(token == PALIGEMMA_EOS_TOKEN, axis=-1)
            all_eos = jnp.all(has_eos)

            # Decode one step
            token_embedding = self.PaliGemma.llm(token, embed_only=True)
            positions = prefill_len[:, None] + step + 1
            mask = jnp.logical_and(
                jnp.arange(prefill_size + max_decoding_steps)[None, None, :] >= prefix_start[:, None, None],
                jnp.arange(prefill_size + max_decoding_steps)[None, None, :]
                < (jnp.broadcast_to(prefill_size + step + 1, (prefix_start.shape[0], 1, 1))),
            )
            last_logit, kv_cache, _ = self.PaliGemma.llm(
                embedded_prefix=token_embedding, mask=mask, positions=positions, decode=True, kv_cache=cache
            )

            return rng, last_logit, output_tokens, kv_cache, all_eos, step + 1

        def cond(carry):
            _, _, _, _, all_eos, step = carry
            return (~all_eos) & (step < max_decoding_steps)

        # Use lax.while_loop so we can jit the full decoding loop.
        _, _, output_tokens, _, _, _ = jax.lax.while_loop(cond, step, (rng, last_logit, output_tokens, kv_cache, False, 0))
        return output_tokens


if __name__ == "__main__":
    model = Pi0FAST()
    observation = jnp.zeros((1, 3))
    sample_kwargs = {"temperature": 0.7}

    # as Policy does: module_jit(model.sample_actions)(sample_rng, obs, **sample_kwargs)
    sample_actions = module_jit(model.sample_actions)
    tokens = sample_actions(jax.random.key(0), observation, **sample_kwargs)
    assert tokens.shape == (1, 256)
    assert len(set(tokens[0].tolist())) > 1, tokens
    greedy = sample_actions(jax.random.key(0), observation, temperature=0.0)
    assert greedy.shape == (1, 256)
