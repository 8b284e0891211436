# source: https://github.com/google-research/long-range-arena/issues/7 (code: lra_benchmarks/listops/train.py at https://github.com/google-research/long-range-arena/blob/6d5e5ca277f11c851085672423ca8473c6272aa8/lra_benchmarks/listops/train.py)
# observed on jax 0.10.2 CPU: ValueError: Non-hashable static arguments are not supported (unhashable type: 'dict'), raised at the create_model(...) call in main
# gap: static-hashability
# Renamed old APIs: flax.nn (flax_module.partial / nn.stochastic / init_by_shape / nn.Model) no
# longer exists; the body of create_model uses the flax.linen spelling (flax_module(**kwargs),
# module.init); jax.host_id() is now jax.process_index(). Added: imports, a tiny linen TransformerEncoder stand-in, config values as
# literals in place of FLAGS.config and the input pipeline (vocab_size 14 as in the log).
import functools

import flax.linen as nn
import jax
from jax import random
import jax.numpy as jnp


class TransformerEncoder(nn.Module):  # stand-in for lra_benchmarks.models.transformer
  vocab_size: int
  emb_dim: int = 16
  num_heads: int = 2
  num_layers: int = 1
  qkv_dim: int = 16
  mlp_dim: int = 32
  max_len: int = 32
  classifier: bool = True
  num_classes: int = 10

  @nn.compact
  def __call__(self, inputs):
    x = nn.Embed(self.vocab_size, self.emb_dim)(inputs.astype(jnp.int32))
    x = nn.Dense(self.mlp_dim)(x)
    return nn.Dense(self.num_classes)(x.mean(axis=1))


@functools.partial(jax.jit, static_argnums=(1, 2, 3))
def create_model(key, flax_module, input_shape, model_kwargs):
  module = flax_module(**model_kwargs)
  initial_params = module.init(key, jnp.zeros(input_shape, jnp.float32))
  return initial_params


def main():
  batch_size = 4
  max_length = 32
  random_seed = 0
  model_type = 'transformer'
  model_kwargs = {}

  vocab_size = 14
  input_shape = (batch_size, max_length)

  model_kwargs.update({
      'vocab_size': vocab_size,
      'emb_dim': 16,
      'num_heads': 2,
      'num_layers': 1,
      'qkv_dim': 16,
      'mlp_dim': 32,
      'max_len': max_length,
      'classifier': True,
      'num_classes': 10
  })

  rng = random.PRNGKey(random_seed)
  rng = jax.random.fold_in(rng, jax.process_index())
  rng, init_rng = random.split(rng)

  if model_type == 'transformer':
    model = create_model(init_rng, TransformerEncoder, input_shape,  # expect: JIT302
                         model_kwargs)
  else:
    raise ValueError('Model type not supported')
  return model


if __name__ == "__main__":
  main()
