# source: https://github.com/giganttheo/GAN-JAX/blob/36ff6ab9543bfbba83fc1754a907a0f0e347d7ed/src/models/wgan.py
# observed on jax 0.10.2 CPU: see the observed lines; the WGAN-GP critic draws its latent and its interpolation epsilon from the same key, and the 5 critic iterations of train_step all split the same rng, so every iteration gets the same key_crit
# gap: flow-sensitive
# observed: line 151 jax_debug_key_reuse with a typed key raises KeyReuseError at this epsilon draw: `key` was already consumed by sample_latent for the latent
# observed: line 183 a jax.debug.callback on the key passed to loss_critic shows the same key_crit in all 5 critic iterations of one train_step (rng is re-split each time, also after split(rng, 3) above)
# (Generator/Critic copied from src/architecture/dcgan.py and sample_latent from src/utils.py at the same commit; Model from src/models/base_model.py)
# (flax.optim.Adam no longer exists: replaced by the small optax-backed stand-in `Adam` below with the same create/target/apply_gradient interface)
# (jax.partial renamed to functools.partial; plot replaced by a no-op stand-in; __main__ block added with small random data in place of MNIST)
import functools
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


class Critic(nn.Module):
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


# ---- src/models/wgan.py ----
#Losses

@jax.jit
def loss_generator(params_g, params_c, vars_g, vars_c, data, key):
  latent = sample_latent(key, shape=(data.shape[0], 64))

  fake_data, vars_g = Generator().apply(
      {'params': params_g, 'batch_stats': vars_g['batch_stats']},
      latent, mutable=['batch_stats']
  )

  fake_value, vars_c = Critic().apply(
      {'params': params_c, 'batch_stats': vars_c['batch_stats']},
      fake_data, mutable=['batch_stats']
  )

  loss = jnp.mean(-fake_value)
  return loss, (vars_g, vars_c)


@functools.partial(jax.vmap, in_axes=(None, None, 0))
@functools.partial(jax.grad, argnums=2)
def critic_forward(params, vars, input_image):
  """Helper function to calculate the gradients with respect to the input."""
  value, _ = Critic().apply(
      {'params': params, 'batch_stats': vars['batch_stats']},
      input_image, mutable=['batch_stats']
  )
  return value[0, 0]


@jax.jit
def loss_critic(params_c, params_g, vars_g, vars_c, data, key):
  latent = sample_latent(key, shape=(data.shape[0], 64))

  fake_data, vars_g = Generator().apply(
      {'params': params_g, 'batch_stats': vars_g['batch_stats']},
      latent, mutable=['batch_stats']
  )

  fake_value, vars_c = Critic().apply(
      {'params': params_c, 'batch_stats': vars_c['batch_stats']},
      fake_data, mutable=['batch_stats']
  )

  real_value, vars_c = Critic().apply(
      {'params': params_c, 'batch_stats': vars_c['batch_stats']},
      data, mutable=['batch_stats']
  )

  # Interpolate between fake and real images with epsilon
  epsilon = jax.random.uniform(key, shape=(data.shape[0], 1, 1, 1))  # expect: JIT502
  data_mix = data * epsilon + fake_data * (1 - epsilon)

  # Fetch the gradient penalty
  gradients = critic_forward(params_c, vars_c, data_mix)
  gradients    = gradients.reshape((gradients.shape[0], -1))
  grad_norm    = jnp.linalg.norm(gradients, axis=1)
  grad_penalty = ((grad_norm - 1) ** 2).mean()

  # here we use 10 as a fixed parameter as a cost of the penalty.
  loss = - real_value.mean() + fake_value.mean() + 10 * grad_penalty

  return loss, (vars_g, vars_c)


#Train and eval functions

@jax.jit
def train_step(data, vars_g, vars_c, optim_g, optim_c, rng):
  key, key_gen, key_crit = jax.random.split(rng, 3)

  # Train the generator
  grad_fn_generator = jax.value_and_grad(loss_generator, has_aux=True)
  (loss_g, (vars_g, vars_c)), grad_g = grad_fn_generator(
      optim_g.target, optim_c.target, vars_g, vars_c, data, key_gen
  )

  optim_g = optim_g.apply_gradient(grad_g)
  
  # We train the critic iteratively, ensuring the penalty has sufficient effect.
  grad_fn_critic = jax.value_and_grad(loss_critic, has_aux=True)
  for _ in range(5):
    key, key_crit = jax.random.split(rng, 2)  # expect: JIT502
    (loss_c, (vars_g, vars_c)), grad_c = grad_fn_critic(
        optim_c.target, optim_g.target, vars_g, vars_c, data, key_crit
    )

    optim_c = optim_c.apply_gradient(grad_c)
  
  loss = {'generator': loss_g, 'critic': loss_c}
  return loss, vars_g, vars_c, optim_g, optim_c, key


@jax.jit
def eval_step(params, vars, latent):  
  fake_data, _ = Generator(training=False).apply(
      {'params': params, 'batch_stats': vars['batch_stats']},
      latent, mutable=['batch_stats']
  )

  return fake_data



#Training loop

class WGan(Model):
    def __init__(self):
        pass

    def train(self, data_gen, batches_in_epoch, key, verbose=1):
        epochs = 51

        key, key_gen, key_crit, key_latent = jax.random.split(key, 4)

        # Retrieve shapes for generator and discriminator input.
        latent = sample_latent(key_latent, shape=(100, 64)) #TODO shape
        image_shape = next(data_gen).shape

        # Generate initial variables (parameters and batch statistics).
        vars_g = Generator().init(key_gen, jnp.ones(latent.shape, jnp.float32))
        vars_c = Critic().init(key_crit, jnp.ones(image_shape, jnp.float32))

        # Create optimizers.
        optim_g = Adam(0.0002, 0.5, 0.999).create(vars_g['params']) #TODO hp
        optim_c = Adam(0.0002, 0.5, 0.999).create(vars_c['params'])

        loss = {'generator': [], 'critic': []}

        for epoch in range(1, epochs):
            for batch in range(batches_in_epoch):
                data = next(data_gen)

                batch_loss, vars_g, vars_c, optim_g, optim_c, key = train_step(
                    data, vars_g, vars_c, optim_g, optim_c, key
                )

                loss['generator'].append(batch_loss['generator'])
                loss['critic'].append(batch_loss['critic'])
        
            sample = eval_step(optim_g.target, vars_g, latent)
            if verbose:
                plot(sample, loss, epoch)

    def eval(self):
        pass


if __name__ == "__main__":
  import traceback
  import numpy as np

  B = 4
  key = jax.random.PRNGKey(41)
  key, key_gen, key_crit, key_data = jax.random.split(key, 4)
  data = jax.random.uniform(key_data, (B, 28, 28, 1), minval=-1.0, maxval=1.0)
  vars_g = Generator().init(key_gen, jnp.ones((B, 64), jnp.float32))
  vars_c = Critic().init(key_crit, jnp.ones(data.shape, jnp.float32))
  optim_g = Adam(0.0002, 0.5, 0.999).create(vars_g['params'])
  optim_c = Adam(0.0002, 0.5, 0.999).create(vars_c['params'])

  # 1) the key reuse checker (typed keys) flags the epsilon draw in loss_critic
  jax.config.update("jax_debug_key_reuse", True)
  try:
    loss_critic(optim_c.target, optim_g.target, vars_g, vars_c, data, jax.random.key(0))
    raise SystemExit("expected a KeyReuseError")
  except jax.errors.KeyReuseError as e:
    frames = traceback.extract_tb(e.__cause__.__traceback__)
    line = [f.lineno for f in frames if f.filename == __file__][-1]
    print("loss_critic: KeyReuseError at line", line)
    assert "jax.random.uniform(key, shape" in open(__file__).read().splitlines()[line - 1]
  jax.config.update("jax_debug_key_reuse", False)

  # 2) record the key each of the 5 critic iterations of train_step receives
  seen = []
  _orig_loss_critic = loss_critic

  def _recording_loss_critic(params_c, params_g, vars_g, vars_c, data, key):
    jax.debug.callback(lambda k: seen.append(np.asarray(k)), key)
    return _orig_loss_critic(params_c, params_g, vars_g, vars_c, data, key)

  loss_critic = _recording_loss_critic
  out = train_step(data, vars_g, vars_c, optim_g, optim_c, key)
  jax.block_until_ready(out)
  print("critic keys per iteration:", [k.tolist() for k in seen])
  assert len(seen) == 5 and all((k == seen[0]).all() for k in seen)
  print("all 5 critic iterations used the same key_crit")
