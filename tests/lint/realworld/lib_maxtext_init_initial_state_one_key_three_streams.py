# source: https://github.com/AI-Hypercomputer/maxtext/blob/64de98e14893e8ceb533f680ab572fca1ae599dd/src/MaxText/maxtext_utils.py
#   (init_initial_state before commit 1cdddd30 "Fix rngs used for training", which splits
#   the key into params_key, dropout_key and aqt_key)
# observed on jax 0.10.2 CPU: setup_initial_state jits init_initial_state and hands the one
#   key to the "params", "dropout" and "aqt" collections of model.init, so draws made at the
#   same place in the model from different collections use the same key: the dropout mask
#   is exactly `aqt noise < keep probability` at every element. Kept verbatim:
#   init_decode_state, init_training_state and init_initial_state. Stand-ins (maxtext is not
#   installed): the model is a small linen module that embeds the tokens and, as maxtext's
#   decoder layers do at init with dropout enabled and AQT on, draws a dropout mask from
#   "dropout" and stochastic-rounding noise from "aqt" (kept in a "draws" collection so the test can read them);
#   multimodal_utils.get_dummy_image_shape_for_init returns () for text models as maxtext's
#   does; the config is a namespace of the values read; jax.jit's in_shardings=None and
#   out_shardings are left out (one CPU device).
# gap: other
import functools
from types import SimpleNamespace

from flax import linen as nn
from flax.training import train_state
import jax
import jax.numpy as jnp
import numpy as np
import optax


def _get_dummy_image_shape_for_init(model_name, batch_size=1):
  # stand-in for multimodal_utils.get_dummy_image_shape_for_init on a text model
  return ()


multimodal_utils = SimpleNamespace(get_dummy_image_shape_for_init=_get_dummy_image_shape_for_init)


class Transformer(nn.Module):
  """Stand-in for models.Transformer: embedding, dropout and AQT noise in one scope."""

  vocab_size: int = 32
  emb_dim: int = 8
  dropout_rate: float = 0.5

  @nn.compact
  def __call__(self, decoder_input_tokens, decoder_positions, encoder_images=None, enable_dropout=True):
    x = nn.Embed(self.vocab_size, self.emb_dim)(decoder_input_tokens)
    if enable_dropout:
      keep = jax.random.bernoulli(self.make_rng("dropout"), 1.0 - self.dropout_rate, x.shape)
      self.variable("draws", "keep", lambda: keep)
      x = jnp.where(keep, x / (1.0 - self.dropout_rate), 0.0)
    noise = jax.random.uniform(self.make_rng("aqt"), x.shape)
    self.variable("draws", "aqt_noise", lambda: noise)
    return jnp.floor(x + noise)


def init_decode_state(apply_fn, params) -> train_state.TrainState:
  """Init train state with null opt state for decode."""
  state = train_state.TrainState(step=0, apply_fn=apply_fn, params=params, tx=None, opt_state={})  # type: ignore
  return state


def init_training_state(apply_fn, params, tx):
  """Init train state with null opt state for decode."""
  state = train_state.TrainState.create(apply_fn=apply_fn, params=params, tx=tx)
  return state


def init_initial_state(model, tx, config, is_training, key):
  """
  We pass in "static" objects like model, tx, config as JAX compares them by
  object hash, and instantiating them inside causes pjit top-level annotations
  to fail to match as pytree prefixes if we re-instantiate.

  Args: model, tx, config, is_training, key
  """
  input_shape = (config.micro_batch_size_to_train_on, config.max_target_length)
  image_shape = multimodal_utils.get_dummy_image_shape_for_init(
      config.model_name, batch_size=config.micro_batch_size_to_train_on
  )
  model_vars = model.init(
      {"params": key, "dropout": key, "aqt": key},  # expect: JIT502
      np.ones(input_shape, dtype=jnp.int32),
      np.ones(input_shape, dtype=jnp.int32),
      encoder_images=np.ones(image_shape, dtype=jnp.int32) if config.use_multimodal else None,
      # nnx_method="no_op",
  )
  if is_training:
    return init_training_state(model.apply, model_vars, tx)
  return init_decode_state(model.apply, model_vars)


if __name__ == "__main__":
  config = SimpleNamespace(
      micro_batch_size_to_train_on=4, max_target_length=16, model_name="default", use_multimodal=False
  )
  model = Transformer()
  tx = optax.adamw(1e-3)
  rng = jax.random.PRNGKey(0)
  # as setup_initial_state does it
  init_state_partial = functools.partial(init_initial_state, model, tx, config, True)
  init_state_partial.__name__ = "initialize_state"
  state = jax.jit(init_state_partial)(rng)
  keep = np.asarray(state.params["draws"]["keep"])
  noise = np.asarray(state.params["draws"]["aqt_noise"])
  # observed: line 79 gives dropout and aqt the same key: the mask is `noise < 0.5` exactly
  assert 0 < keep.sum() < keep.size
  assert (keep == (noise < 0.5)).all()
