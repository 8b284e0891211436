# source: https://github.com/google-research/big_vision/blob/0127fb6b337ee2a27bf4e54dea79cff176527356/big_vision/models/mlp_mixer.py
# observed on jax 0.10.2 CPU: `train` reaches MixerBlock and _stoch_depth_mask as a Python
#   bool written at the call site (big_vision's jitted update_fn calls
#   `model.apply(..., train=True, rngs={"dropout": rng})`), so `not train` and
#   `if not deterministic and drop_p` branch on Python values; the stochastic-depth masks
#   draw from make_rng("dropout"), a fresh key per call, and with a new rng per step the
#   jitted train step drops different blocks. The eval forward under jax.jit matches eager.
#   Kept verbatim: MlpBlock, MixerBlock, MlpMixer, Model and _stoch_depth_mask (load, which
#   reads checkpoints through big_vision.utils, and the big_vision imports it needs are left
#   out); the jitted loss/update step and the inputs stand in for big_vision's train.py.
# gap: exemption-vs-JAX
# unverifiable: needs einops, which the test extra does not install (verified when collected, on jax 0.10.2 with einops installed)
from typing import Optional, Tuple
from absl import logging

import einops
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np


class MlpBlock(nn.Module):
  mlp_dim: int

  @nn.compact
  def __call__(self, x):
    y = nn.Dense(self.mlp_dim)(x)
    y = nn.gelu(y)
    return nn.Dense(x.shape[-1])(y)


class MixerBlock(nn.Module):
  """Mixer block layer."""
  tokens_mlp_dim: int
  channels_mlp_dim: int
  drop_p: float

  @nn.compact
  def __call__(self, x, *, train=False):
    y = nn.LayerNorm()(x)
    y = jnp.swapaxes(y, 1, 2)
    y = MlpBlock(self.tokens_mlp_dim, name="token_mixing")(y)
    y = jnp.swapaxes(y, 1, 2)
    x = x + y * _stoch_depth_mask(x, self.drop_p, not train, self.make_rng)
    y = nn.LayerNorm()(x)
    y = MlpBlock(self.channels_mlp_dim, name="channel_mixing")(y)
    return x + y * _stoch_depth_mask(x, self.drop_p, not train, self.make_rng)


class MlpMixer(nn.Module):
  """Mixer architecture."""
  patch_size: Tuple[int, int]
  num_classes: Optional[int]
  num_blocks: int
  hidden_dim: int
  tokens_mlp_dim: int
  channels_mlp_dim: int
  model_name: Optional[str] = None
  stoch_depth: float = 0.0

  @nn.compact
  def __call__(self, image, *, train=False):
    out = {}
    x = out["stem"] = nn.Conv(self.hidden_dim, self.patch_size,
                              strides=self.patch_size, name="stem")(image)
    x = out["input_tokens"] = einops.rearrange(x, "n h w c -> n (h w) c")
    for i in range(self.num_blocks):
      drop_p = (i / max(self.num_blocks - 1, 1)) * self.stoch_depth
      x = out[f"block_{i}"] = MixerBlock(
          self.tokens_mlp_dim, self.channels_mlp_dim, drop_p)(x, train=train)
    x = nn.LayerNorm(name="pre_head_layer_norm")(x)
    x = out["pre_logits"] = jnp.mean(x, axis=1)
    if self.num_classes:
      x = out["logits"] = nn.Dense(
          self.num_classes, kernel_init=nn.initializers.zeros, name="head")(x)
    return x, out


def Model(num_classes=None, *, variant=None, **kw):  # pylint: disable=invalid-name
  """Factory function to easily create a Model variant like "L/16"."""

  if variant is not None:
    model_size, patch = variant.split("/")
    kw.setdefault("patch_size", (int(patch), int(patch)))
    config = {
        "S": {
            "hidden_dim": 512,
            "num_blocks": 8,
            "channels_mlp_dim": 2048,
            "tokens_mlp_dim": 256
        },
        "B": {
            "hidden_dim": 768,
            "num_blocks": 12,
            "channels_mlp_dim": 3072,
            "tokens_mlp_dim": 384
        },
        "L": {
            "hidden_dim": 1024,
            "num_blocks": 24,
            "channels_mlp_dim": 4096,
            "tokens_mlp_dim": 512
        },
        "H": {
            "hidden_dim": 1280,
            "num_blocks": 32,
            "channels_mlp_dim": 5120,
            "tokens_mlp_dim": 640
        },
    }[model_size]

    for k, v in config.items():
      kw.setdefault(k, v)

  logging.info("Mixer config: %s", kw)
  return MlpMixer(num_classes=num_classes, **kw)


def _stoch_depth_mask(x, drop_p, deterministic, make_rng):
  if not deterministic and drop_p:
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    return 1.0 - jax.random.bernoulli(make_rng("dropout"), drop_p, shape)
  return 1.0


if __name__ == "__main__":
  model = Model(num_classes=3, patch_size=(4, 4), num_blocks=3, hidden_dim=8,
                tokens_mlp_dim=8, channels_mlp_dim=16, stoch_depth=0.9)
  images = jax.random.normal(jax.random.key(0), (4, 8, 8, 3))
  labels = jax.nn.one_hot(jnp.arange(4) % 3, 3)
  params = model.init(jax.random.key(1), images)["params"]

  @jax.jit
  def predict_fn(params, images):
    logits, _ = model.apply({"params": params}, images)
    return logits

  np.testing.assert_allclose(
      predict_fn(params, images), model.apply({"params": params}, images)[0],
      rtol=1e-5, atol=1e-5)

  @jax.jit
  def update_fn(params, images, labels, rng):
    # stand-in for big_vision's train.py update_fn (no optimizer)
    def loss_fn(params):
      _, out = model.apply({"params": params}, images, train=True, rngs={"dropout": rng})
      return jnp.mean((out["block_2"] - out["input_tokens"]) ** 2)
    return jax.value_and_grad(loss_fn)(params)

  rng = jax.random.key(2)
  losses = []
  for step in range(6):
    rng, step_rng = jax.random.split(rng)
    loss, _ = update_fn(params, images, labels, step_rng)
    losses.append(float(loss))
  assert len(set(losses)) > 1, losses  # a fresh dropout key per step
  print(losses)
