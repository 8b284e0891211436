# source: https://github.com/google/flax/issues/587 (examples/wmt/train.py of that time)
# observed on jax 0.10.2 CPU: ValueError: Non-hashable static arguments are not supported
#   (model_kwargs, a dict, is static argument 3). The body of create_model built a model
#   with the retired flax.nn API; the smallest body that uses the same arguments stands in.
# gap: static-hashability
import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnums=(1, 2, 3))
def create_model(key, input_shape, target_shape, model_kwargs):
  emb = jax.random.normal(key, (model_kwargs['vocab_size'], model_kwargs['emb_dim']))
  return emb, jnp.zeros(input_shape), jnp.zeros(target_shape)


model_kwargs = {'vocab_size': 32, 'output_vocab_size': 32, 'emb_dim': 8, 'num_heads': 2,
                'num_layers': 1, 'qkv_dim': 8, 'mlp_dim': 16, 'max_len': 16,
                'share_embeddings': True, 'logits_via_embedding': True}
input_shape = (2, 16)
target_shape = (2, 16)
create_model(jax.random.PRNGKey(0), input_shape, target_shape, model_kwargs)  # expect: JIT302
