# source: https://github.com/google/praxis/blob/d7e9f45c58bcdf7dd147b08acb27712bc4ccf144/praxis/layers/attentions.py
#   (LocalSelfAttention._dot_atten_one_step before commit f87b3b5 "Modify local attention
#   extend_step so we can compile it", which replaces the Python max and the slices by
#   lax.dynamic_slice_in_dim of a padded copy)
# observed on jax 0.10.2 CPU: with the decode time step traced (a jitted extend_step, as
#   in praxis's decode loop), `max(time_step - self.left_context + 1, 0)` compares a tracer
#   with 0 and raises TracerBoolConversionError; the slices of key, value, atten_mask and
#   relative_bias that follow use the traced time step as a bound, which fails too once the
#   max is gone (IndexError: Slice entries must be static integers), tolerated.
#   _dot_atten_one_step is kept verbatim. Stand-ins (praxis is not installed): the layer is
#   a plain class with the attributes the method reads (right_context 0, left_context 3,
#   attention_extra_logit None, zero_fully_masked False); get_decode_state reads a dict of
#   decode states; the sharding helpers and _cap_logits are identities; _scale_query scales
#   by dim_per_head ** -0.5; make_qk_dot_general/make_pv_dot_general return
#   jax.lax.dot_general; base_layer.assert_has_shape, asserts.in_set and
#   py_utils.get_large_negative_number are minimal namespaces; `jax.jit` of a small
#   extend step calling the method stands in for praxis's extend_step.
# gap: other
import types
from typing import Optional

import jax
import jax.numpy as jnp

JTensor = jnp.ndarray


def _assert_has_shape(t, shape):
  # stand-in for base_layer.assert_has_shape: -1 matches any size
  assert t.ndim == len(shape), (t.shape, shape)
  for a, b in zip(t.shape, shape):
    assert b == -1 or a == b, (t.shape, shape)


base_layer = types.SimpleNamespace(assert_has_shape=_assert_has_shape)
asserts = types.SimpleNamespace(in_set=lambda x, s: None)  # stand-in
py_utils = types.SimpleNamespace(
    get_large_negative_number=lambda dtype: jnp.asarray(-0.7 * jnp.finfo(dtype).max, dtype))


class LocalSelfAttention:
  """Stand-in for praxis's LocalSelfAttention: only what _dot_atten_one_step reads."""

  right_context = 0
  left_context = 3
  attention_extra_logit = None
  zero_fully_masked = False
  dim_per_head = 4

  def __init__(self, decode_states):
    self._decode_states = decode_states

  def get_decode_state(self, name):
    return self._decode_states[name]

  def _shard_blnh(self, x):
    return x

  def _shard_bnh(self, x):
    return x

  def _scale_query(self, query):
    return query * self.dim_per_head ** -0.5

  def make_qk_dot_general(self):
    return jax.lax.dot_general

  def make_pv_dot_general(self):
    return jax.lax.dot_general

  def _cap_logits(self, logits):
    return logits

  def _dot_atten_one_step(self,
                          query: JTensor,
                          key_state_name: str,
                          value_state_name: str,
                          atten_mask: JTensor,
                          relative_bias: Optional[JTensor] = None,
                          time_step: Optional[JTensor] = None) -> JTensor:
    if self.right_context > 0:
      raise ValueError('Local attention must be causal to extend step.')

    key = self._shard_blnh(self.get_decode_state(key_state_name))
    value = self._shard_blnh(self.get_decode_state(value_state_name))
    k_b = key.shape[0]
    q_b = query.shape[0]
    if q_b != k_b:
      if q_b % k_b != 0:
        raise ValueError(
            f'q batch size {q_b} is not divisible by state batch size {k_b}')
      key = jnp.repeat(key, q_b // k_b, axis=0)
      value = jnp.repeat(value, q_b // k_b, axis=0)
    if atten_mask.shape[0] != q_b and atten_mask.shape[0] != 1:
      assert atten_mask.shape[0] == k_b, (atten_mask.shape, k_b)
      atten_mask = jnp.repeat(atten_mask, q_b // k_b, axis=0)
    # query is 3d.
    query = self._shard_bnh(query)

    left_index = max(time_step - self.left_context + 1, 0)  # expect: JIT401
    key = key[:, left_index : time_step + 1]  # tolerate: JIT404
    value = value[:, left_index : time_step + 1]  # tolerate: JIT404
    atten_mask = atten_mask[..., left_index : time_step + 1]  # tolerate: JIT404

    b, l, n, h = key.shape
    base_layer.assert_has_shape(value, [b, l, n, h])
    base_layer.assert_has_shape(query, [b, n, h])
    base_layer.assert_has_shape(atten_mask, [-1, 1, l])
    asserts.in_set(atten_mask.shape[0], [b, 1])
    query = self._scale_query(query)
    logits = jnp.einsum(
        'BNH,BLNH->BNL',
        query,
        key,
        _dot_general=self.make_qk_dot_general(),
    )
    if relative_bias is not None:
      relative_bias = relative_bias[..., left_index : time_step + 1]  # tolerate: JIT404
      base_layer.assert_has_shape(relative_bias, [-1, n, 1, l])
      asserts.in_set(relative_bias.shape[0], [b, 1])
      relative_bias = jnp.squeeze(relative_bias, axis=2)
      logits += relative_bias
    logits = self._cap_logits(logits)
    # Attention softmax is always carried out in fp32.
    logits = logits.astype(jnp.float32)
    # Apply attention masking
    padded_logits = logits + atten_mask.astype(jnp.float32)
    # Of shape [b, n, s]
    if self.attention_extra_logit is None:
      probs = jax.nn.softmax(padded_logits, axis=-1).astype(key.dtype)
    else:
      probs = jnp.exp(self._log_softmax_with_extra_logit(padded_logits)).astype(
          key.dtype)
    # Compute the attention context.
    encoded = jnp.einsum(
        'BNL,BLNH->BNH',
        probs,
        value,
        _dot_general=self.make_pv_dot_general(),
    )

    if self.zero_fully_masked:
      # Return zeros for tokens which don't attend anything.
      fully_masked = jnp.all(
          atten_mask < py_utils.get_large_negative_number(jnp.float32) / 2,
          axis=-1,
      )[..., jnp.newaxis]
      encoded *= 1 - fully_masked

    encoded = self._shard_bnh(encoded)
    return encoded, probs  # pytype: disable=bad-return-type  # jax-ndarray


@jax.jit
def extend_step(key_state, value_state, query, atten_mask, relative_bias, time_step):
  # stand-in for praxis's extend_step: decode states and the traced time step
  layer = LocalSelfAttention({'key_state': key_state, 'value_state': value_state})
  return layer._dot_atten_one_step(
      query, 'key_state', 'value_state', atten_mask, relative_bias, time_step)


if __name__ == "__main__":
  b, s, n, h = 2, 8, 2, 4
  key_state = jnp.ones((b, s, n, h))
  value_state = jnp.ones((b, s, n, h))
  query = jnp.ones((b, n, h))
  atten_mask = jnp.zeros((1, 1, s))
  relative_bias = jnp.zeros((1, n, 1, s))
  extend_step(key_state, value_state, query, atten_mask, relative_bias, jnp.int32(5))
