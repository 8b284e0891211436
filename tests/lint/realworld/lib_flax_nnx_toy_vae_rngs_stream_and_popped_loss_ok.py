# source: https://github.com/google/flax/blob/1f10b9da1a4fd0f0ebbc9358e140888d9dbe2352/examples/nnx_toy_examples/05_vae.py
#   (Flax's NNX toy VAE: the encoder draws its noise from a stored `nnx.Rngs` stream and
#   stores its KL term as a `Loss` variable that the jitted loss pops)
# observed on jax 0.10.2 CPU (flax 0.12.8, optax 0.2.8): runs clean. Under `nnx.jit`,
#   `self.rngs.noise()` advances the stream's counter, which nnx writes back after each
#   call, so every step and every `forward` call draws new noise (two calls of `forward`
#   on one batch differ); `self.kl_loss = Loss(...)` in `Encoder.__call__` stores a traced
#   value on the module, but nnx traces the module's graph and writes the new variable
#   back as an array (no tracer is left on the module), and `train_step` pops it with
#   `nnx.pop` inside the loss. Stand-ins: random uint8 images for the MNIST set that the
#   example loads with Hugging Face `datasets`. Changed: `epochs` 20 -> 2 and
#   `steps_per_epoch` 200 -> 50 (run time). Left out: the matplotlib figures and the
#   generative-sample cell after them. Added: the final asserts.
# gap: stale-state-attributes
# %%
import typing as tp

import jax
import jax.numpy as jnp
import numpy as np
import optax

from flax import nnx

np.random.seed(42)
latent_size = 32
image_shape: tp.Sequence[int] = (28, 28)
steps_per_epoch: int = 50
batch_size: int = 64
epochs: int = 2


X_train = np.random.randint(0, 256, size=(1000, 28, 28)).astype(np.uint8)  # stand-in for MNIST
X_test = np.random.randint(0, 256, size=(100, 28, 28)).astype(np.uint8)  # stand-in for MNIST
# Now binarize data
X_train = (X_train > 0).astype(jnp.float32)
X_test = (X_test > 0).astype(jnp.float32)

print('X_train:', X_train.shape, X_train.dtype)
print('X_test:', X_test.shape, X_test.dtype)


class Loss(nnx.Variable):
  pass


# %%
class Encoder(nnx.Module):
  def __init__(self, din: int, dmid: int, dout: int, *, rngs: nnx.Rngs):
    self.linear1 = nnx.Linear(din, dmid, rngs=rngs)
    self.linear_mean = nnx.Linear(dmid, dout, rngs=rngs)
    self.linear_std = nnx.Linear(dmid, dout, rngs=rngs)
    self.rngs = rngs

  def __call__(self, x: jax.Array) -> jax.Array:
    x = x.reshape((x.shape[0], -1))  # flatten
    x = self.linear1(x)
    x = jax.nn.relu(x)

    mean = self.linear_mean(x)
    std = jnp.exp(self.linear_std(x))

    self.kl_loss = Loss(
      jnp.mean(
        0.5 * jnp.mean(-jnp.log(std**2) - 1.0 + std**2 + mean**2, axis=-1)
      )
    )
    key = self.rngs.noise()
    z = mean + std * jax.random.normal(key, mean.shape)
    return z


class Decoder(nnx.Module):
  def __init__(self, din: int, dmid: int, dout: int, *, rngs: nnx.Rngs):
    self.linear1 = nnx.Linear(din, dmid, rngs=rngs)
    self.linear2 = nnx.Linear(dmid, dout, rngs=rngs)

  def __call__(self, z: jax.Array) -> jax.Array:
    z = self.linear1(z)
    z = jax.nn.relu(z)
    logits = self.linear2(z)
    return logits


class VAE(nnx.Module):
  def __init__(
    self,
    din: int,
    hidden_size: int,
    latent_size: int,
    output_shape: tp.Sequence[int],
    *,
    rngs: nnx.Rngs,
  ):
    self.output_shape = output_shape
    self.encoder = Encoder(din, hidden_size, latent_size, rngs=rngs)
    self.decoder = Decoder(
      latent_size, hidden_size, int(np.prod(output_shape)), rngs=rngs
    )

  def __call__(self, x: jax.Array) -> jax.Array:
    z = self.encoder(x)
    logits = self.decoder(z)
    logits = jnp.reshape(logits, (-1, *self.output_shape))
    return logits

  def generate(self, z):
    logits = self.decoder(z)
    logits = jnp.reshape(logits, (-1, *self.output_shape))
    return nnx.sigmoid(logits)


model = VAE(
  din=int(np.prod(image_shape)),
  hidden_size=256,
  latent_size=latent_size,
  output_shape=image_shape,
  rngs=nnx.Rngs(0, noise=1),
)

optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)


# %%
@nnx.jit
def train_step(model: VAE, optimizer: nnx.Optimizer, x: jax.Array):
  def loss_fn(model: VAE):
    logits = model(x)
    losses = nnx.pop(model, Loss)
    kl_loss = sum(jax.tree_util.tree_leaves(losses), 0.0)
    reconstruction_loss = jnp.mean(
      optax.sigmoid_binary_cross_entropy(logits, x)
    )
    loss = reconstruction_loss + 0.1 * kl_loss
    return loss

  loss, grads = nnx.value_and_grad(loss_fn)(model)
  optimizer.update(model, grads)

  return loss


@nnx.jit
def forward(model: VAE, x: jax.Array) -> jax.Array:
  y_pred = model(x)
  return jax.nn.sigmoid(y_pred)


@nnx.jit
def sample(model: VAE, z: jax.Array) -> jax.Array:
  return model.generate(z)


# %%

for epoch in range(epochs):
  losses = []
  for step in range(steps_per_epoch):
    idxs = np.random.randint(0, len(X_train), size=(batch_size,))
    x_batch = X_train[idxs]

    loss = train_step(model, optimizer, x_batch)
    losses.append(np.asarray(loss))

  print(f'Epoch {epoch} loss: {np.mean(losses)}')

# exit()
# %%
# get random samples
idxs = np.random.randint(0, len(X_test), size=(5,))
x_sample = X_test[idxs]

# get predictions
y_pred = forward(model, x_sample)

y_pred_again = forward(model, x_sample)
assert not bool(jnp.allclose(y_pred, y_pred_again))
assert not isinstance(model.encoder.kl_loss[...], jax.core.Tracer)
z_samples = np.random.normal(scale=1.5, size=(12, latent_size))
samples = sample(model, z_samples)
assert samples.shape == (12, 28, 28)
