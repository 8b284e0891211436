# source: https://github.com/google/praxis/blob/68ca3580e22b7a797c94d325e1fb8549be6b9779/praxis/layers/attentions.py
#   (DotProductAttentionXL._atten_logits_one_step after commit 68ca358 "Change the
#   _atten_logits_one_step so the argument of arange is known at compile time even if step
#   is not")
# observed on jax 0.10.2 CPU: `t - 1 - jnp.arange(s)` takes its length from the key's
#   static shape, so the method runs under jax.jit with a traced decode time step, also
#   inside a lax.fori_loop over time steps, and matches the eager result.
#   _atten_logits_one_step is kept verbatim. Stand-ins (praxis is not installed): the layer
#   is a plain class holding use_bias and theta (u, v); pos_emb is a sinusoidal positional
#   embedding returning [1, S, D] and pos_proj a per-head projection [D] -> [N, H] (what
#   create_relative_positional_embedding builds), and `jax.jit` of a small decode step
#   calling the method with a traced time step stands in for extend_step.
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
    pos = jnp.expand_dims(t - 1 - jnp.arange(s), 0)
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
  out = decode_step_logits(query, key, jnp.int32(2))
  eager = layer._atten_logits_one_step(query, key, 2)
  assert jnp.allclose(out, eager, atol=1e-4), (out, eager)

  def body(i, acc):
    return acc + decode_step_logits(query, key, i)

  total = jax.lax.fori_loop(0, 4, body, jnp.zeros((3, 2, 6)))
  print(out.shape, total.shape)
