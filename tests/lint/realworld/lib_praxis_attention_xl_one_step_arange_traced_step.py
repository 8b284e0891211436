# source: https://github.com/google/praxis/blob/3f15ad0da12b000e4d8fd63fee88a0be31d92b43/praxis/layers/attentions.py
#   (DotProductAttentionXL._atten_logits_one_step before commit 68ca358 "Change the
#   _atten_logits_one_step so the argument of arange is known at compile time even if step
#   is not")
# observed on jax 0.10.2 CPU: extend_step decoding hands _atten_logits_one_step the decode
#   time step; when that step is traced (a jitted decode step, praxis's decode while loop),
#   `jnp.arange(t - 1, t - s - 1, -1)` raises ConcretizationTypeError: the bounds of arange
#   must be concrete. _atten_logits_one_step is kept verbatim. Stand-ins (praxis is not
#   installed): the layer is a plain class holding use_bias and theta (u, v); pos_emb is a
#   sinusoidal positional embedding returning [1, S, D] and pos_proj a per-head projection
#   [D] -> [N, H] (what create_relative_positional_embedding builds), and `jax.jit` of a
#   small decode step calling the method with a traced time step stands in for extend_step.
# gap: other
import types

import jax
import jax.numpy as jnp


class DotProductAttentionXL:
  """Stand-in for praxis's DotProductAttentionXL: only what _atten_logits_one_step reads."""

  def __init__(self, num_heads, dim_per_head, rel_pos_emb_dim, use_bias=True):
    self.use_bias = use_bias
    self.rel_pos_emb_dim = rel_pos_emb_dim
    k1, k2, k3 = jax.random.split(jax.random.key(0), 3)
    self.theta = types.SimpleNamespace(
        u=jax.random.normal(k1, (num_heads, dim_per_head)),
        v=jax.random.normal(k2, (num_heads, dim_per_head)),
    )
    self._proj_w = jax.random.normal(k3, (rel_pos_emb_dim, num_heads, dim_per_head))

  def pos_emb(self, position):
    # stand-in for embedding_softmax.PositionalEmbedding: [1, S] -> [1, S, D]
    half = self.rel_pos_emb_dim // 2
    inv = 1.0 / (10000.0 ** (jnp.arange(half) / half))
    scaled = position[..., None].astype(jnp.float32) * inv
    return jnp.concatenate([jnp.sin(scaled), jnp.cos(scaled)], axis=-1)

  def pos_proj(self, x):
    # stand-in for the per-head projection layer: [1, S, D] -> [1, S, N, H]
    return jnp.einsum('BSD,DNH->BSNH', x, self._proj_w)

  def _atten_logits_one_step(self, query, key, step):
    t = step + 1
    s = key.shape[1]

    # [1, S]
    pos = jnp.expand_dims(jnp.arange(t - 1, t - s - 1, -1), 0)  # expect: JIT404
    sin_emb = self.pos_emb(position=pos)
    # [1, S, N, H]
    sin_emb = self.pos_proj(sin_emb)
    # [S, N, H]
    sin_emb = jnp.squeeze(sin_emb, 0)

    # [B, N, T, S=T]
    if self.use_bias:
      term_ac = jnp.einsum('BNH,BSNH->BNS', query + self.theta.u, key)
      term_bd = jnp.einsum('BNH,TNH->BNT', query + self.theta.v, sin_emb)
    else:
      term_ac = jnp.einsum('BNH,BSNH->BNS', query, key)
      term_bd = jnp.einsum('BNH,TNH->BNT', query, sin_emb)
    return term_ac + term_bd


layer = DotProductAttentionXL(num_heads=2, dim_per_head=4, rel_pos_emb_dim=8)


@jax.jit
def decode_step_logits(query, key, time_step):
  # stand-in for extend_step -> _dot_atten_one_step inside the jitted decode loop
  return layer._atten_logits_one_step(query, key, time_step)


if __name__ == "__main__":
  query = jnp.ones((3, 2, 4))       # [B, N, H]
  key = jnp.ones((3, 6, 2, 4))      # [B, S, N, H]
  print(decode_step_logits(query, key, jnp.int32(2)).shape)
