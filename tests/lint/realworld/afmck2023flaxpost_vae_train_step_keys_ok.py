# source: https://github.com/vvvm23/vvvm23.github.io/blob/0207c69dd920b18003eb17041606fe840759bc71/content/posts/2023-06-04-flax-post/index.md (blog post "Easy JAX training loops with Flax and Optax" by Alexander McKinney, afmck.in/posts/2023-06-04-flax-post: the class-conditioned VAE, create_train_step, the training loop and build_sample_fn)
# observed on jax 0.10.2 CPU: runs clean; train_step is traced once for the whole loop, each step draws its reparameterisation noise from a fresh subkey, and sample_fn is traced once
# gap: exemption-vs-JAX
# (changes: the MNIST/torchvision DataLoader is replaced by a small synthetic stand-in yielding (batch, c) torch-like pairs with .numpy(), 2 epochs of 12 batches instead of 10 epochs of MNIST, freq = 4; the unused orbax and torchvision imports dropped; the post's `h, w = 10` (a TypeError) written `h, w = 10, 10`; the matplotlib plot dropped; compiled-cache-size and key checks in __main__)
import jax # install correct wheel for accelerator you want to use
import flax
import optax

import flax.linen as nn
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from typing import Tuple, Callable
from math import sqrt

batch_size = 16
latent_dim = 32
kl_weight = 0.5
num_classes = 10
seed = 0xffff

key = jax.random.PRNGKey(seed)


class _Batch:
  # stand-in for a torch tensor from the MNIST DataLoader
  def __init__(self, a):
    self._a = a

  def numpy(self):
    return self._a


def _stand_in_loader(n_batches, rng):
  for _ in range(n_batches):
    batch = rng.uniform(0.0, 1.0, (batch_size, 1, 28, 28)).astype(np.float32)
    c = rng.integers(0, num_classes, (batch_size,))
    yield _Batch(batch), _Batch(c)


class FeedForward(nn.Module):
  dimensions: Tuple[int] = (256, 128, 64)
  activation_fn: Callable = nn.relu
  drop_last_activation: bool = False

  @nn.compact
  def __call__(self, x: ArrayLike) -> ArrayLike:
    for i, d in enumerate(self.dimensions):
      x = nn.Dense(d)(x)
      if i != len(self.dimensions) - 1 or not self.drop_last_activation:
        x = self.activation_fn(x)
    return x


class VAE(nn.Module):
  encoder_dimensions: Tuple[int] = (256, 128, 64)
  decoder_dimensions: Tuple[int] = (128, 256, 784)
  latent_dim: int = 4
  activation_fn: Callable = nn.relu

  def setup(self):
    self.encoder = FeedForward(self.encoder_dimensions, self.activation_fn)
    self.pre_latent_proj = nn.Dense(self.latent_dim * 2)
    self.post_latent_proj = nn.Dense(self.encoder_dimensions[-1])
    self.class_proj = nn.Dense(self.encoder_dimensions[-1])
    self.decoder = FeedForward(self.decoder_dimensions, self.activation_fn, drop_last_activation=False)

  def reparam(self, mean: ArrayLike, logvar: ArrayLike, key: jax.random.PRNGKey) -> ArrayLike:
    std = jnp.exp(logvar * 0.5)
    eps = jax.random.normal(key, mean.shape)
    return eps * std + mean

  def encode(self, x: ArrayLike):
    x = self.encoder(x)
    mean, logvar = jnp.split(self.pre_latent_proj(x), 2, axis=-1)
    return mean, logvar

  def decode(self, x: ArrayLike, c: ArrayLike):
    x = self.post_latent_proj(x)
    x = x + self.class_proj(c)
    x = self.decoder(x)
    return x

  def __call__(
      self, x: ArrayLike, c: ArrayLike, key: jax.random.PRNGKey) -> Tuple[ArrayLike, ArrayLike, ArrayLike]:
    mean, logvar = self.encode(x)
    z = self.reparam(mean, logvar, key)
    y = self.decode(z, c)
    return y, mean, logvar


def create_train_step(key, model, optimiser):
  params = model.init(key, jnp.zeros((batch_size, 784)), jnp.zeros((batch_size, num_classes)), jax.random.PRNGKey(0)) # dummy key just as example input
  opt_state = optimiser.init(params)

  def loss_fn(params, x, c, key):
    reduce_dims = list(range(1, len(x.shape)))
    c = jax.nn.one_hot(c, num_classes) # one hot encode the class index
    recon, mean, logvar = model.apply(params, x, c, key)
    mse_loss = optax.l2_loss(recon, x).sum(axis=reduce_dims).mean()
    kl_loss = jnp.mean(-0.5 * jnp.sum(1 + logvar - mean ** 2 - jnp.exp(logvar), axis=reduce_dims)) # KL loss term to keep encoder output close to standard normal distribution.

    loss = mse_loss + kl_weight * kl_loss
    return loss, (mse_loss, kl_loss)

  @jax.jit
  def train_step(params, opt_state, x, c, key):
    losses, grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, c, key)
    loss, (mse_loss, kl_loss) = losses

    updates, opt_state = optimiser.update(grads, opt_state, params)
    params = optax.apply_updates(params, updates)

    return params, opt_state, loss, mse_loss, kl_loss

  return train_step, params, opt_state


def build_sample_fn(model, params):
  @jax.jit
  def sample_fn(z: jnp.array, c: jnp.array) -> jnp.array:
    return model.apply(params, z, c, method=model.decode)
  return sample_fn


if __name__ == "__main__":
  key, model_key = jax.random.split(key)

  model = VAE(latent_dim=latent_dim)
  optimiser = optax.adamw(learning_rate=1e-4)

  train_step, params, opt_state = create_train_step(model_key, model, optimiser)

  data_rng = np.random.default_rng(0)
  step_keys = []
  freq = 4
  for epoch in range(2):
    train_loader = _stand_in_loader(12, data_rng)
    total_loss, total_mse, total_kl = 0.0, 0.0, 0.0
    for i, (batch, c) in enumerate(train_loader):
      key, subkey = jax.random.split(key)
      step_keys.append(np.asarray(subkey))

      batch = batch.numpy().reshape(batch_size, 784)
      c = c.numpy()
      params, opt_state, loss, mse_loss, kl_loss = train_step(params, opt_state, batch, c, subkey)

      total_loss += loss
      total_mse += mse_loss
      total_kl += kl_loss

      if i > 0 and not i % freq:
        print(f"epoch {epoch} | step {i} | loss: {total_loss / freq} ~ mse: {total_mse / freq}. kl: {total_kl / freq}")
        total_loss = 0.
        total_mse, total_kl = 0.0, 0.0

  sample_fn = build_sample_fn(model, params)

  num_samples = 100
  h, w = 10, 10

  key, z_key = jax.random.split(key)
  z = jax.random.normal(z_key, (num_samples, latent_dim))
  c = np.repeat(np.arange(h)[:, np.newaxis], w, axis=-1).flatten()
  c = jax.nn.one_hot(c, num_classes)
  sample = sample_fn(z, c)
  sample_fn(z, c)
  print(z.shape, c.shape, sample.shape)

  assert train_step._cache_size() == 1, train_step._cache_size()
  assert sample_fn._cache_size() == 1, sample_fn._cache_size()
  assert len({k.tobytes() for k in step_keys}) == len(step_keys) == 24
  assert sample.shape == (100, 784) and bool(jnp.isfinite(sample).all())
  assert bool(jnp.isfinite(loss))
  print("OK: one trace of train_step, a fresh subkey every step, one trace of sample_fn")
