# source: https://github.com/google/maxtext/blob/2b01cfa375e2514af341caeb627026b585b4a563/MaxText/maxengine.py
#   (MaxEngine.generate after commit 2b01cfa3 "Split rng key before sampling", which adds
#   `self.rng, _ = jax.random.split(self.rng)` before sampling; sampling is copied from
#   MaxText/inference_utils.py at the parent commit b3007471. Commit 5461405a, from the same
#   parent, instead gives generate an rng argument that the caller splits per step)
# observed on jax 0.10.2 CPU: generate is jitted with `self` static, so the split runs once,
#   at trace time: it stores a tracer in engine.rng (a leaked tracer after the call), and
#   the compiled program samples every step with the same key, split(PRNGKey(0))[0]: with
#   uniform logits two consecutive steps sample the same 64 tokens. Kept verbatim: generate
#   and sampling (with its two helpers), the first lines of MaxEngine.__init__ and
#   MODEL_MODE_AUTOREGRESSIVE. Stand-ins (maxtext and jetstream are not installed): the
#   model is a one-matrix lookup whose apply returns logits [B, 1, V] and the cache
#   unchanged, ResultTokens is a flax struct with the fields generate fills, the config is a
#   namespace of the values generate reads ("weighted" sampling at temperature 1), the mesh
#   is one axis over the CPU devices and both shardings are replicated; `engine_api`,
#   `common_types` and `inference_utils` are namespaces holding those.
# gap: stale-state-attributes
import functools
from types import SimpleNamespace
from typing import Any, Tuple

from flax import struct
from flax.linen import partitioning as nn_partitioning
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P
import numpy as np

Params = Any
DecodeState = Any

NEG_INF = -1.0e7  # Masking purpose


def sampling(logits, rng, algorithm, topk=0, nucleus_topp=0, temperature=1.0):
  """
  logits: unnormalized logits to sample, shaped [YOUR_LEADING_DIMS, Vocab], before logit
  rng: rng key to use
  algorithm: string representing supported algorithms
  topk: restricting to topk logits before sampling
  nucleus_topp: restricting to p probability mass before sampling
  temperature: temperature parameter for scaling probability
  """
  if algorithm == "greedy":
    return jnp.argmax(logits, axis=-1)
  elif algorithm == "weighted":
    return jax.random.categorical(rng, logits / temperature)
  elif algorithm == "nucleus":
    return sample_nucleus_topp_logits(logits, nucleus_topp, temperature, rng)
  elif algorithm == "topk":
    return sample_topk_logits(logits, topk, temperature, rng)
  else:
    raise ValueError(f"Sampling {algorithm=} not supported!")


def sample_nucleus_topp_logits(logits, nucleus_topp, temperature, rng):
  """Restrict sampling to the top logits with cumulative probability >= nucleus_topp."""
  if nucleus_topp < 0:
    raise ValueError("Can't apply nucleus with parameter {nucleus_topp=} less zero")
  logits_sorted = jnp.sort(logits, axis=-1)[..., ::-1]  # sort descending
  sorted_cum_probs = jnp.cumsum(jax.nn.softmax(logits_sorted, axis=-1), axis=-1)  # get cumsum probs
  cutoff_index = jnp.sum(sorted_cum_probs < nucleus_topp, axis=-1, keepdims=True)  # find cutoff index
  cutoff_logit = jnp.take_along_axis(logits_sorted, cutoff_index, axis=-1)
  logits = jnp.where(logits < cutoff_logit, jnp.full_like(logits, NEG_INF), logits)
  return jax.random.categorical(rng, logits / temperature)


def sample_topk_logits(logits, topk, temperature, rng):
  """Restricting sampling to the best k logits."""
  if topk <= 0:
    raise ValueError("Can't apply algorithm topk with parameter {topk=} less than or equal to zero")
  topk_logits, topk_idxs = jax.lax.top_k(logits, topk)
  topk_token = jnp.expand_dims(jax.random.categorical(rng, topk_logits / temperature).astype(jnp.int32), axis=-1)
  sampled_tokens = jnp.squeeze(jnp.take_along_axis(topk_idxs, topk_token, axis=-1), axis=-1).astype(jnp.int32)
  return sampled_tokens


@struct.dataclass
class ResultTokens:
  """Stand-in for jetstream's engine_api.ResultTokens."""

  data: jax.Array
  tokens_idx: Tuple[int, int] = struct.field(pytree_node=False)
  valid_idx: Tuple[int, int] = struct.field(pytree_node=False)
  length_idx: Tuple[int, int] = struct.field(pytree_node=False)
  samples_per_slot: int = struct.field(pytree_node=False)


class LookupModel:
  """Stand-in for models.Transformer: logits looked up from the previous token."""

  def apply(self, variables, tokens, positions, *, enable_dropout, model_mode, rngs, mutable):
    logits = variables["params"]["embedding"][tokens]  # [B, 1, V]
    return logits, {"cache": variables["cache"]}


engine_api = SimpleNamespace(ResultTokens=ResultTokens)
common_types = SimpleNamespace(MODEL_MODE_AUTOREGRESSIVE="autoregressive")
inference_utils = SimpleNamespace(sampling=sampling)


class MaxEngine:
  """The computational core of the generative model server."""

  def __init__(self, config):
    self.config = config
    self.rng = jax.random.PRNGKey(0)

    # Mesh definition (stand-in: one axis over the CPU devices)
    self._mesh = jax.sharding.Mesh(np.array(jax.devices()), config.mesh_axes)
    self.model = LookupModel()
    self.replicated_sharding = jax.sharding.NamedSharding(self._mesh, P(None))
    self.kv_cache_shardings = self.replicated_sharding

  @functools.partial(jax.jit, static_argnums=(0,), donate_argnums=(2,))
  def generate(self, params: Params, decode_state: DecodeState) -> Tuple[DecodeState, engine_api.ResultTokens]:
    """Run one generate step"""
    previous_token = decode_state["tokens"]

    # run one step generation
    with self._mesh, nn_partitioning.axis_rules(self.config.logical_axis_rules):
      out_logits, new_vars = self.model.apply(
          params | {"cache": decode_state["cache"]},
          previous_token,
          decode_state["next_pos"],
          enable_dropout=False,
          model_mode=common_types.MODEL_MODE_AUTOREGRESSIVE,
          rngs={"params": self.rng},
          mutable=["cache"],
      )

    out_logits = jax.lax.with_sharding_constraint(out_logits, self.replicated_sharding)
    new_cache = jax.lax.with_sharding_constraint(new_vars["cache"], self.kv_cache_shardings)

    # try to split rng
    self.rng, _ = jax.random.split(self.rng)  # expect: JIT202
    # sampling tokens
    new_token = inference_utils.sampling(
        out_logits,
        self.rng,  # expect: JIT502
        self.config.decode_sampling_strategy,
        topk=self.config.decode_sampling_top_k,
        nucleus_topp=self.config.decode_sampling_nucleus_p,
        temperature=self.config.decode_sampling_temperature,
    )

    all_valid = jnp.ones(new_token.shape, dtype=jnp.int8)
    result = engine_api.ResultTokens(
        data=jnp.concatenate((new_token, all_valid, decode_state["generated_tokens"]), axis=1),
        # Tokens are shape [batch, speculations], so when we concatenate
        # tokens, validity and length along their index 1 dimension then they
        # occupy 0:speculations.
        tokens_idx=(0, 1),
        # Validity occupies the same amount of space, but next in line.
        valid_idx=(1, 2),
        # And lengths is rank 1.
        length_idx=(2, 3),
        samples_per_slot=1,
    )

    return {
        "logits": out_logits,
        "cache": new_cache,
        "next_pos": decode_state["next_pos"] + 1,
        "generated_tokens": decode_state["generated_tokens"] + 1,
        "tokens": new_token,
    }, result


if __name__ == "__main__":
  import warnings
  warnings.simplefilter("ignore", DeprecationWarning)  # `with mesh:` in generate

  config = SimpleNamespace(
      mesh_axes=("data",),
      logical_axis_rules=(),
      decode_sampling_strategy="weighted",
      decode_sampling_top_k=0,
      decode_sampling_nucleus_p=-1,
      decode_sampling_temperature=1.0,
  )
  engine = MaxEngine(config)
  batch, vocab = 64, 1000
  params = {"params": {"embedding": jnp.zeros((vocab, vocab))}}
  decode_state = {
      "logits": jnp.zeros((batch, 1, vocab)),
      "cache": {"k": jnp.zeros((batch, 8))},
      "next_pos": jnp.zeros((batch, 1), jnp.int32),
      "generated_tokens": jnp.zeros((batch, 1), jnp.int32),
      "tokens": jnp.zeros((batch, 1), jnp.int32),
  }
  # stand-in for init_decode_state/insert: a decode state laid out as generate returns it
  params, decode_state = jax.device_put((params, decode_state), engine.replicated_sharding)
  decode_state, _ = engine.generate(params, decode_state)
  first = np.asarray(decode_state["tokens"])
  decode_state, _ = engine.generate(params, decode_state)
  second = np.asarray(decode_state["tokens"])
  # observed: line 136 stores a tracer in engine.rng at trace time
  assert isinstance(engine.rng, jax.core.Tracer), type(engine.rng)
  # observed: line 140 samples every step with the same key: the two steps draw the same tokens
  assert (first == second).all(), (first.ravel(), second.ravel())
  assert len(set(first.ravel().tolist())) > 1
