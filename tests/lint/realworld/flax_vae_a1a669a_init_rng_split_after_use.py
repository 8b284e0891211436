# source: https://github.com/google/flax/blob/a1a669aa8c57e48161898e9fcec741828047a2ec/examples/vae/train.py
# observed on jax 0.10.2 CPU: with flax 0.12.8, `main` hands `rng` to `model().init` as the
#   VAE's `z_rng`, and `init` runs `__call__`, whose `reparameterize` draws the latent noise
#   from it (`random.normal(rng, logvar.shape)`); then `main` splits the same `rng` into the
#   training chain, `z_key` and `eval_rng`. JAX's key-reuse checker (typed keys,
#   `jax_debug_key_reuse`) raises KeyReuseError at that `random.split(rng, 3)`. The example
#   kept the pattern when it was rewritten in db97574 ("Update VAE example") and still has it
#   on main (`init(key, init_data, rng)` then `random.split(rng, 3)`). The example's code is
#   kept; cut: the tensorflow/tfds input pipeline (`prepare_image` and the `binarized_mnist`
#   download), replaced by a stand-in of random binary images, and the `vae_utils.save_image`
#   calls (the `utils` module is not here); `app.run(main)` is replaced. Added: the `__main__` block, which parses small
#   flag values, runs `main` once, then runs it again under JAX's key-reuse checker with
#   `jax.random.PRNGKey` returning a typed key, and checks the line the error names.
# gap: other
import itertools

from absl import app
from absl import flags
from flax import linen as nn
from flax.training import train_state
import jax.numpy as jnp
import jax
from jax import random
import numpy as np
import optax


FLAGS = flags.FLAGS

flags.DEFINE_float(
    'learning_rate', default=1e-3,
    help=('The learning rate for the Adam optimizer.')
)

flags.DEFINE_integer(
    'batch_size', default=128,
    help=('Batch size for training.')
)

flags.DEFINE_integer(
    'num_epochs', default=30,
    help=('Number of training epochs.')
)

flags.DEFINE_integer(
    'latents', default=20,
    help=('Number of latent variables.')
)


class Encoder(nn.Module):
  latents: int

  @nn.compact
  def __call__(self, x):
    x = nn.Dense(500, name='fc1')(x)
    x = nn.relu(x)
    mean_x = nn.Dense(self.latents, name='fc2_mean')(x)
    logvar_x = nn.Dense(self.latents, name='fc2_logvar')(x)
    return mean_x, logvar_x


class Decoder(nn.Module):

  @nn.compact
  def __call__(self, z):
    z = nn.Dense(500, name='fc1')(z)
    z = nn.relu(z)
    z = nn.Dense(784, name='fc2')(z)
    return z


class VAE(nn.Module):
  latents: int = 20

  def setup(self):
    self.encoder = Encoder(self.latents)
    self.decoder = Decoder()

  def __call__(self, x, z_rng):
    mean, logvar = self.encoder(x)
    z = reparameterize(z_rng, mean, logvar)
    recon_x = self.decoder(z)
    return recon_x, mean, logvar

  def generate(self, z):
    return nn.sigmoid(self.decoder(z))


def reparameterize(rng, mean, logvar):
  std = jnp.exp(0.5 * logvar)
  eps = random.normal(rng, logvar.shape)
  return mean + eps * std


@jax.vmap
def kl_divergence(mean, logvar):
  return -0.5 * jnp.sum(1 + logvar - jnp.square(mean) - jnp.exp(logvar))


@jax.vmap
def binary_cross_entropy_with_logits(logits, labels):
  logits = nn.log_sigmoid(logits)
  return -jnp.sum(labels * logits + (1. - labels) * jnp.log(-jnp.expm1(logits)))


def compute_metrics(recon_x, x, mean, logvar):
  bce_loss = binary_cross_entropy_with_logits(recon_x, x).mean()
  kld_loss = kl_divergence(mean, logvar).mean()
  return {
      'bce': bce_loss,
      'kld': kld_loss,
      'loss': bce_loss + kld_loss
  }


def model():
  return VAE(latents=FLAGS.latents)


@jax.jit
def train_step(state, batch, z_rng):
  def loss_fn(params):
    recon_x, mean, logvar = model().apply({'params': params}, batch, z_rng)

    bce_loss = binary_cross_entropy_with_logits(recon_x, batch).mean()
    kld_loss = kl_divergence(mean, logvar).mean()
    loss = bce_loss + kld_loss
    return loss
  grads = jax.grad(loss_fn)(state.params)
  return state.apply_gradients(grads=grads)


@jax.jit
def eval(params, images, z, z_rng):
  def eval_model(vae):
    recon_images, mean, logvar = vae(images, z_rng)
    comparison = jnp.concatenate([images[:8].reshape(-1, 28, 28, 1),
                                  recon_images[:8].reshape(-1, 28, 28, 1)])

    generate_images = vae.generate(z)
    generate_images = generate_images.reshape(-1, 28, 28, 1)
    metrics = compute_metrics(recon_images, images, mean, logvar)
    return metrics, comparison, generate_images

  return nn.apply(eval_model, model())({'params': params})


def _binary_images(seed, n):
  # stand-in for the binarized_mnist pipeline (random binary 784-pixel images)
  return (np.random.RandomState(seed).rand(n, 784) < 0.3).astype(np.float32)


def main(argv):
  del argv

  rng = random.PRNGKey(0)
  rng, key = random.split(rng)

  train_ds = itertools.repeat(_binary_images(1, FLAGS.batch_size))
  test_ds = jax.device_put(_binary_images(2, 64))

  init_data = jnp.ones((FLAGS.batch_size, 784), jnp.float32)

  state = train_state.TrainState.create(
      apply_fn=model().apply,
      params=model().init(key, init_data, rng)['params'],
      tx=optax.adam(FLAGS.learning_rate),
  )

  rng, z_key, eval_rng = random.split(rng, 3)  # expect: JIT502
  z = random.normal(z_key, (64, FLAGS.latents))

  steps_per_epoch = 50000 // FLAGS.batch_size

  for epoch in range(FLAGS.num_epochs):
    for _ in range(steps_per_epoch):
      batch = next(train_ds)
      rng, key = random.split(rng)
      state = train_step(state, batch, key)

    metrics, comparison, sample = eval(state.params, test_ds, z, eval_rng)

    print('eval epoch: {}, loss: {:.4f}, BCE: {:.4f}, KLD: {:.4f}'.format(
        epoch + 1, metrics['loss'], metrics['bce'], metrics['kld']
    ))


if __name__ == '__main__':
  import traceback
  FLAGS(['vae', '--batch_size=12500', '--num_epochs=1', '--latents=4'])
  main([])
  jax.config.update('jax_debug_key_reuse', True)
  random.PRNGKey = lambda seed: jax.random.key(seed)
  try:
    main([])
    raise AssertionError('no KeyReuseError')
  except jax.errors.KeyReuseError as e:
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
    # observed: line 171 splits `rng` after `model().init` drew the latent noise from it:
    #   JAX's key-reuse checker raises KeyReuseError here
    assert frames[-1].lineno == 171, frames[-1].lineno
  print('ok')
