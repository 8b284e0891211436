# source: https://github.com/giganttheo/GAN-JAX/blob/36ff6ab9543bfbba83fc1754a907a0f0e347d7ed/src/models/vanilla_gan.py
# observed on jax 0.10.2 CPU: runs clean; three train_step calls return three different keys and finite losses
# gap: flow-sensitive
# (good file: the DCGAN train_step splits its incoming key into a fresh key and one key per loss, returns the fresh key, and the training loop threads it through every call)
# (Generator/Discriminator copied from src/architecture/dcgan.py and sample_latent from src/utils.py at the same commit; Model from src/models/base_model.py)
# (flax.optim.Adam no longer exists: replaced by the small optax-backed stand-in `Adam` below with the same create/target/apply_gradient interface)
# (plot replaced by a no-op stand-in; __main__ block added: VanillaGan.train with epochs=51 on MNIST is replaced by three train_step calls on small random data)
from typing import Any

import jax
import jax.numpy as jnp
import optax
from flax import linen as nn
from flax import struct
from jax.nn.initializers import normal as normal_init


# ---- stand-in for the removed flax.optim API ----
@struct.dataclass
class _Optimizer:
  target: Any
  state: Any
  tx: Any = struct.field(pytree_node=False)

  def apply_gradient(self, grads):
    updates, state = self.tx.update(grads, self.state, self.target)
    return self.replace(target=optax.apply_updates(self.target, updates), state=state)


class Adam:
  def __init__(self, learning_rate, beta1=0.9, beta2=0.999):
    self.tx = optax.adam(learning_rate, beta1, beta2)

  def create(self, target):
    return _Optimizer(target, self.tx.init(target), self.tx)


def plot(images, loss, epoch):
  pass


class Model():
    def __init__(self):
        pass

    def train(self, data_gen, batches_in_epoch, key, verbose=1):
        pass

    def eval(self):
        pass


# ---- src/utils.py ----
def sample_latent(key, shape):
  return jax.random.normal(key, shape=shape)


# ---- src/architecture/dcgan.py ----
class Generator(nn.Module):
  features: int = 64
  training: bool = True

  @nn.compact
  def __call__(self, z):
    z = z.reshape((z.shape[0], 1, 1, z.shape[1]))
    x = nn.ConvTranspose(self.features*4, [3, 3], [2, 2], 'VALID', kernel_init=normal_init(0.02))(z)
    x = nn.BatchNorm(not self.training, -1, 0.1, scale_init=normal_init(0.02))(x)
    x = nn.relu(x)
    x = nn.ConvTranspose(self.features*2, [4, 4], [1, 1], 'VALID', kernel_init=normal_init(0.02))(x)
    x = nn.BatchNorm(not self.training, -1, 0.1, scale_init=normal_init(0.02))(x)
    x = nn.relu(x)
    x = nn.ConvTranspose(self.features, [3, 3], [2, 2], 'VALID', kernel_init=normal_init(0.02))(x)
    x = nn.BatchNorm(not self.training, -1, 0.1, scale_init=normal_init(0.02))(x)
    x = nn.relu(x)
    x = nn.ConvTranspose(1, [4, 4], [2, 2], 'VALID', kernel_init=normal_init(0.02))(x)
    x = jnp.tanh(x)
    return x


class Discriminator(nn.Module):
  features: int = 64
  training: bool = True

  @nn.compact
  def __call__(self, x):
    x = nn.Conv(self.features, [4, 4], [2, 2], 'VALID', kernel_init=normal_init(0.02))(x)
    x = nn.BatchNorm(not self.training, -1, 0.1, scale_init=normal_init(0.02))(x)
    x = nn.leaky_relu(x, 0.2)
    x = nn.Conv(self.features*2, [4, 4], [2, 2], 'VALID', kernel_init=normal_init(0.02))(x)
    x = nn.BatchNorm(not self.training, -1, 0.1, scale_init=normal_init(0.02))(x)
    x = nn.leaky_relu(x, 0.2)
    x = nn.Conv(1, [4, 4], [2, 2], 'VALID', kernel_init=normal_init(0.02))(x)
    x = x.reshape((x.shape[0], -1))
    return x


# ---- src/models/vanilla_gan.py ----
#Losses

def bce_logits(input, target):
  """
  Implements the BCE with logits loss, as described:
  https://github.com/pytorch/pytorch/issues/751
  """
  neg_abs = -jnp.abs(input)
  batch_bce = jnp.maximum(input, 0) - input * target + jnp.log(1 + jnp.exp(neg_abs))
  return jnp.mean(batch_bce)


def loss_generator(params_g, params_d, vars_g, vars_d, data, key):
  latent = sample_latent(key, shape=(data.shape[0], 64))

  fake_data, vars_g = Generator().apply(
      {'params': params_g, 'batch_stats': vars_g['batch_stats']},
      latent, mutable=['batch_stats']
  )

  fake_preds, vars_d = Discriminator().apply(
      {'params': params_d, 'batch_stats': vars_d['batch_stats']},
      fake_data, mutable=['batch_stats']
  )

  loss = -jnp.mean(jnp.log(nn.sigmoid(fake_preds)))
  return loss, (vars_g, vars_d)


def loss_discriminator(params_d, params_g, vars_g, vars_d, data, key):
  latent = sample_latent(key, shape=(data.shape[0], 64))

  fake_data, vars_g = Generator().apply(
      {'params': params_g, 'batch_stats': vars_g['batch_stats']},
      latent, mutable=['batch_stats']
  )

  fake_preds, vars_d = Discriminator().apply(
      {'params': params_d, 'batch_stats': vars_d['batch_stats']},
      fake_data, mutable=['batch_stats']
  )

  real_preds, vars_d = Discriminator().apply(
      {'params': params_d, 'batch_stats': vars_d['batch_stats']},
      data, mutable=['batch_stats']
  )

  real_loss = bce_logits(real_preds, jnp.ones((data.shape[0],), dtype=jnp.int32))
  fake_loss = bce_logits(fake_preds, jnp.zeros((data.shape[0],), dtype=jnp.int32))
  loss = (real_loss + fake_loss) / 2

  return loss, (vars_g, vars_d)


#Train and eval functions

@jax.jit
def train_step(data, vars_g, vars_d, optim_g, optim_d, rng):
  key, key_gen, key_disc = jax.random.split(rng, 3)

  # Train the generator
  grad_fn_generator = jax.value_and_grad(loss_generator, has_aux=True)
  (loss_g, (vars_g, vars_d)), grad_g = grad_fn_generator(
      optim_g.target, optim_d.target, vars_g, vars_d, data, key_gen
  )

  optim_g = optim_g.apply_gradient(grad_g)
  
  # Train the discriminator
  grad_fn_discriminator = jax.value_and_grad(loss_discriminator, has_aux=True)
  (loss_d, (vars_g, vars_d)), grad_d = grad_fn_discriminator(
      optim_d.target, optim_g.target, vars_g, vars_d, data, key_disc
  )

  optim_d = optim_d.apply_gradient(grad_d)

  loss = {'generator': loss_g, 'discriminator': loss_d}
  return loss, vars_g, vars_d, optim_g, optim_d, key


@jax.jit
def eval_step(params, vars, latent):  
  fake_data, _ = Generator(training=False).apply(
      {'params': params, 'batch_stats': vars['batch_stats']},
      latent, mutable=['batch_stats']
  )

  return fake_data

#Training loop

class VanillaGan(Model):


    def train(self, data_gen, batches_in_epoch, key, verbose=1):
        epochs = 51
        key, key_gen, key_disc, key_latent = jax.random.split(key, 4)

        # Retrieve shapes for generator and discriminator input.
        latent = sample_latent(key_latent, shape=(100, 64))
        image_shape = next(data_gen).shape

        # Generate initial variables (parameters and batch statistics).
        vars_g = Generator().init(key_gen, jnp.ones(latent.shape, jnp.float32))
        vars_d = Discriminator().init(key_disc, jnp.ones(image_shape, jnp.float32))

        # Create optimizers.
        optim_g = Adam(0.0002, 0.5, 0.999).create(vars_g['params'])
        optim_d = Adam(0.0002, 0.5, 0.999).create(vars_d['params'])

        loss = {'generator': [], 'discriminator': []}

        for epoch in range(1, epochs):
            for batch in range(batches_in_epoch):
                data = next(data_gen)

                batch_loss, vars_g, vars_d, optim_g, optim_d, key = train_step(
                    data, vars_g, vars_d, optim_g, optim_d, key
                )

                loss['generator'].append(batch_loss['generator'])
                loss['discriminator'].append(batch_loss['discriminator'])
        
            sample = eval_step(optim_g.target, vars_g, latent)
            plot(sample, loss, epoch)


if __name__ == "__main__":
  import numpy as np

  B = 4
  key = jax.random.PRNGKey(41)
  key, key_gen, key_disc, key_latent, key_data = jax.random.split(key, 5)
  latent = sample_latent(key_latent, shape=(B, 64))
  data = jax.random.uniform(key_data, (B, 28, 28, 1), minval=-1.0, maxval=1.0)
  vars_g = Generator().init(key_gen, jnp.ones(latent.shape, jnp.float32))
  vars_d = Discriminator().init(key_disc, jnp.ones(data.shape, jnp.float32))
  optim_g = Adam(0.0002, 0.5, 0.999).create(vars_g['params'])
  optim_d = Adam(0.0002, 0.5, 0.999).create(vars_d['params'])

  keys = []
  for step in range(3):
    batch_loss, vars_g, vars_d, optim_g, optim_d, key = train_step(
        data, vars_g, vars_d, optim_g, optim_d, key
    )
    keys.append(np.asarray(key))
    print(step, {k: float(v) for k, v in batch_loss.items()})
  assert len({k.tobytes() for k in keys}) == 3
  sample = eval_step(optim_g.target, vars_g, latent)
  print("sample", sample.shape)
