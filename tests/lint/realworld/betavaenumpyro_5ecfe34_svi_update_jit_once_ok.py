# source: https://github.com/ayaka14732/beta-vae-numpyro/blob/5ecfe34dbfd26dc5f7e9a70a416000dd0cf2b2d2/train.py (with lib/model.py and lib/load_dataset.py at the same commit: a beta-VAE written with numpyro's SVI and flax modules)
# observed on jax 0.10.2 CPU: runs clean; `update = jax.jit(svi.update)` is built once at module level and traced once for all steps and epochs (the SVI state carries the PRNG key, split by numpyro inside the update), `reconstruct` is jitted once and given a fresh subkey per epoch; a further epoch adds no entry to either cache
# gap: other
# (merged: VAEEncoder/VAEDecoder from lib/model.py; replaced: the chairs dataset loaded from ~/.beta-vae/chairs/chairs.npy by 8 random binary 128x128 images, batch_size 64 -> 4 and n_epochs 80 -> 2 (CPU time); trimmed: plt.imsave of the reconstructions and the pickle.dump of the parameters, which write files, and with it the matplotlib import (not installed); added: the __main__ checks)
import jax
import jax.numpy as np
import jax.random as rand
import numpy as onp
import numpyro
from numpyro.contrib.module import flax_module
import numpyro.distributions as dist
from numpyro.infer import SVI, Trace_ELBO
import optax
import pickle
import time

import flax.linen as nn


class VAEEncoder(nn.Module):
    image_size: int
    dim_z: int

    @nn.compact
    def __call__(self, x: np.ndarray):
        batch_size, _, _ = x.shape

        x = x.reshape(batch_size, 128, 128, 1)  # x: (b, 128, 128, 1)
        x = nn.softplus(nn.Conv(16, (4, 4), 1)(x))  # (b, 128, 128, 16)
        x = nn.softplus(nn.Conv(32, (4, 4), 2)(x))  # (b, 64, 64, 32)
        x = nn.softplus(nn.Conv(64, (4, 4), 2)(x))  # (b, 32, 32, 64)
        x = x.reshape(batch_size, -1)  # (b, 32 * 32 * 64)

        z_loc = nn.Dense(self.dim_z)(x)
        z_std = np.exp(nn.Dense(self.dim_z)(x))

        return z_loc, z_std

class VAEDecoder(nn.Module):
    image_size: int

    @nn.compact
    def __call__(self, z: np.ndarray):
        batch_size, _ = z.shape
        z = nn.softplus(nn.Dense(32 * 32 * 64)(z))  # (b, 32 * 32 * 64)
        z = z.reshape(batch_size, 32, 32, 64)  # (b, 32, 32, 64)
        z = nn.softplus(nn.ConvTranspose(32, (4, 4), (2, 2))(z))  # (b, 64, 64, 32)
        z = nn.softplus(nn.ConvTranspose(16, (4, 4), (2, 2))(z))  # (b, 128, 128, 16)
        z = nn.sigmoid(nn.ConvTranspose(1, (4, 4))(z))  # (b, 128, 128, 1)
        z = z.reshape(batch_size, self.image_size, self.image_size)  # (b, 128, 128)
        return z


def load_dataset(dataset: str) -> onp.ndarray:  # stand-in for the chairs loader
    return (onp.random.default_rng(0).random((8, 128, 128)) > 0.5).astype(onp.float32)

# Dataset

dataset = 'chairs'
data_x = load_dataset(dataset=dataset)
data_size, *image_shape = data_x.shape
image_size = image_shape[0]

# Model

dim_z = 32
batch_size = 4
n_epochs = 2
learning_rate = 0.0001  # MNIST: 0.001
beta = 4

encoder_nn = VAEEncoder(image_size, dim_z)
decoder_nn = VAEDecoder(image_size)

def model(x: np.ndarray):
    decoder = flax_module('decoder', decoder_nn, input_shape=(batch_size, dim_z))
    with numpyro.plate('batch', batch_size):
        with numpyro.handlers.scale(scale=beta):
            z = numpyro.sample('z', dist.Normal(0, 1).expand([dim_z]).to_event(1))
        img_loc = decoder(z)
        reinterpreted_batch_ndims = len(image_shape)
        return numpyro.sample('obs', dist.Bernoulli(img_loc).to_event(reinterpreted_batch_ndims), obs=x)

def guide(x: np.ndarray):
    encoder = flax_module('encoder', encoder_nn, input_shape=(batch_size, *image_shape))
    z_loc, z_std = encoder(x)
    with numpyro.plate('batch', batch_size):
        with numpyro.handlers.scale(scale=beta):
            return numpyro.sample('z', dist.Normal(z_loc, z_std).to_event(1))

key = rand.PRNGKey(42)

optimizer = optax.adam(learning_rate=learning_rate)
svi = SVI(model, guide, optimizer, Trace_ELBO())

key, subkey = rand.split(key)
sample_batch_idx = onp.asarray(rand.permutation(subkey, data_size)[:batch_size])
sample_batch = data_x[sample_batch_idx]
del sample_batch_idx

key, subkey = rand.split(key)
svi_state = svi.init(subkey, sample_batch)
del sample_batch

num_data = data_size // batch_size

update = jax.jit(svi.update)

def train_step(key, svi_state):
    shuffled_idx = rand.permutation(key, data_size)
    total_loss = 0.0
    for i in range(num_data):
        x = data_x[shuffled_idx[i*batch_size:(i+1)*batch_size]]
        svi_state, loss = update(svi_state, x)
        total_loss += loss / batch_size
    total_loss /= num_data
    return svi_state, total_loss

@jax.jit
def reconstruct(params, x, key):
    img = (x * 255.).astype(np.uint8).reshape(*image_shape)

    params_encoder = params['encoder$params']
    params_decoder = params['decoder$params']

    z_mean, z_var = encoder_nn.apply({'params': params_encoder}, x)
    z = dist.Normal(z_mean, z_var).sample(key)
    x_loc = decoder_nn.apply({'params': params_decoder}, z)

    img_loc = (x_loc * 255.).astype(np.uint8).reshape(*image_shape)

    return np.hstack((img, img_loc))

def reconstruct_img(params, key, epoch):
    key, subkey = rand.split(key)
    idx = rand.choice(subkey, data_size)
    x = data_x[idx][None, ...]

    key, subkey = rand.split(key)
    imgs = reconstruct(params, x, subkey)
    return imgs

for epoch in range(1, n_epochs + 1):
    time_start = time.time()

    key, subkey = rand.split(key)
    svi_state, total_loss = train_step(subkey, svi_state)

    key, subkey = rand.split(key)
    reconstruct_img(svi.get_params(svi_state), subkey, epoch)

    time_elapsed = time.time() - time_start
    print(f'Epoch {epoch}, loss {total_loss:.2f}, time {time_elapsed:.2f}s')


if __name__ == "__main__":
    assert update._cache_size() == 1 and reconstruct._cache_size() == 1
    before = svi.get_params(svi_state)['decoder$params']
    key, subkey = rand.split(key)
    svi_state, total_loss = train_step(subkey, svi_state)
    key, subkey = rand.split(key)
    imgs = reconstruct_img(svi.get_params(svi_state), subkey, n_epochs + 1)
    assert update._cache_size() == 1 and reconstruct._cache_size() == 1
    after = svi.get_params(svi_state)['decoder$params']
    changed = jax.tree_util.tree_map(lambda a, b: bool((a != b).any()), before, after)
    assert all(jax.tree_util.tree_leaves(changed)), "parameters are updated"
    assert imgs.shape == (128, 256) and onp.isfinite(float(total_loss))
    print("OK: one compiled update and one reconstruct after three epochs, parameters updated")
