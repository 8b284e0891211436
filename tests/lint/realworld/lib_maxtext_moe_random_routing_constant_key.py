# source: https://github.com/AI-Hypercomputer/maxtext/blob/75d4078383170355588c9635e07ec1ed0db55983/MaxText/layers/moe.py
#   (RoutedMoE.get_topk before commit a319be31 "Update the random key" of pull request
#   #1745, branch fix_random_key, which draws the key with self.make_rng("random_routing"))
# observed on jax 0.10.2 CPU: with use_random_routing on, get_topk draws from the constant
#   jax.random.PRNGKey(1234) inside the jitted apply, so every call (every step, every
#   layer) routes the tokens to the same experts: two different batches get identical
#   expert indices. Kept verbatim: random_routing and get_topk. Stand-ins (maxtext is not
#   installed): RoutedMoE is reduced to the fields get_topk reads and a __call__ that
#   computes the gate logits with a Dense layer and returns get_topk's result; the config
#   is a namespace of the values read; common_types holds the decoder block names.
# gap: other
from types import SimpleNamespace

import flax.linen as nn
import jax
import jax.numpy as jnp

common_types = SimpleNamespace(DecoderBlockType=SimpleNamespace(DEEPSEEK="deepseek", LLAMA4="llama4"))


def random_routing(rng_key, gate_logits, num_experts_per_tok):
  """
  Performs random routing of tokens to experts.

  Args:
    rng_key: A JAX PRNGKey for randomness.
    gate_logits: A JAX array of shape (batch_size, sequence_length, num_experts)
                 representing the logits for each expert.
    num_experts_per_tok: The number of experts to select for each token.

  Returns:
    A tuple containing:
      - top_k_indices: JAX array of shape (batch_size, sequence_length, num_experts_per_tok)
                       representing the indices of the selected experts for each token.
      - top_k_weights: JAX array of shape (batch_size, sequence_length, num_experts_per_tok)
                       representing the weights for the selected experts.
  """
  bs, seq_len, num_experts = gate_logits.shape
  indices = jnp.arange(num_experts).repeat(bs * seq_len)
  selected_num = bs * seq_len * num_experts_per_tok
  top_k_indices = jax.random.choice(rng_key, indices, shape=(selected_num,)).reshape(bs, seq_len, num_experts_per_tok)
  top_k_weights = jnp.take_along_axis(gate_logits, top_k_indices, axis=-1)
  return top_k_weights, top_k_indices


class RoutedMoE(nn.Module):
  """Stand-in for maxtext's RoutedMoE: the gate and the routing."""

  config: SimpleNamespace
  num_experts: int
  num_experts_per_tok: int
  dtype: jnp.dtype = jnp.float32

  @nn.compact
  def __call__(self, inputs):
    gate_logits = nn.Dense(self.num_experts, use_bias=False, name="gate")(inputs)
    return self.get_topk(gate_logits, gate_logits)

  def get_topk(self, gate_logits, pre_bias_logits):
    """get topk. shape of top_k_weights & top_k_indices: (batch, sequence, num_experts_per_tok)"""
    if self.config.use_random_routing:
      # For debug and test purpose:
      # Ideally we should split a new key for each layer, but for simplicity re-use the key to mimic the random routing
      rng = jax.random.PRNGKey(1234)  # expect: JIT502
      top_k_weights, top_k_indices = random_routing(rng, gate_logits, self.num_experts_per_tok)
      return top_k_weights, top_k_indices

    if self.config.model_name.startswith("deepseek3"):
      top_k_weights, top_k_indices = self.deepseek_routing(gate_logits, pre_bias_logits)
    else:
      top_k_weights, top_k_indices = jax.lax.top_k(gate_logits, self.num_experts_per_tok)

    if self.config.decoder_block == common_types.DecoderBlockType.DEEPSEEK:
      top_k_weights = self.deepseek_scale_weights(top_k_weights)
    elif self.config.decoder_block != common_types.DecoderBlockType.LLAMA4:
      top_k_weights = jax.nn.softmax(top_k_weights.astype(jnp.float32), axis=-1).astype(self.dtype)
    return top_k_weights, top_k_indices


if __name__ == "__main__":
  config = SimpleNamespace(use_random_routing=True, model_name="mixtral-8x7b", decoder_block="mistral")
  moe = RoutedMoE(config=config, num_experts=8, num_experts_per_tok=2)
  init_key, x_key = jax.random.split(jax.random.PRNGKey(0))
  x = jax.random.normal(x_key, (2, 16, 4))
  params = moe.init(init_key, x)
  apply = jax.jit(moe.apply)
  _, first = apply(params, x)
  _, second = apply(params, x * -3.0 + 1.0)
  # observed: line 64 routes every call with the same key: two batches get the same experts
  assert (first == second).all()
  assert len(set(first.ravel().tolist())) > 2
