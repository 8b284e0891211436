# source: https://github.com/b-biswas/diffdeb/blob/63c2bc46bfefc558bb90490839ba9bd458ea4918/diffdeb/train_LDM.py
# observed on jax 0.10.2 CPU: the same key feeds the VAE reparameterisation and forward_noising, so the diffusion noise equals the latent eps
# gap: flow-sensitive
# (fixed upstream in commit 92db6426e83027c662ce68f4ddae1ed8ef0dcc5d "loss bug fix", which adds `rng, key = random.split(rng)` before both forward_noising calls)
# (added: Encoder/reparameterize/forward_noising copied from diffdeb/models.py and diffdeb/diffusion.py at the same commit;
#  a one-layer stand-in for UNet, train_step_UNet/eval_f_UNet as in diffdeb/train_UNet.py with that UNet; small shapes;
#  a SimpleNamespace config instead of ml_collections; a tiny in-memory dataset with as_numpy_iterator();
#  the trained-VAE weight loading replaced by a fresh Encoder init; orbax checkpointing and timing dropped)
import logging
from functools import partial
from types import SimpleNamespace
from typing import Sequence

import flax.linen as nn
import jax
import jax.numpy as jnp
import jax.random as random
import numpy as np
import optax
from flax.training import train_state

logging.basicConfig(level=logging.INFO)

timesteps = 200
beta = jnp.linspace(0.0001, 0.02, timesteps)
alpha = 1 - beta
alpha_bar = jnp.cumprod(alpha, 0)
alpha_bar = jnp.concatenate((jnp.array([1.0]), alpha_bar[:-1]), axis=0)
sqrt_alpha_bar = jnp.sqrt(alpha_bar)
one_minus_sqrt_alpha_bar = jnp.sqrt(1 - alpha_bar)


@jax.jit
def forward_noising(key, x_0, t):
    noise = random.normal(
        key, x_0.shape
    )  # This noise is probably too much for CATSIM dataset
    reshaped_sqrt_alpha_bar_t = jnp.reshape(jnp.take(sqrt_alpha_bar, t), (-1, 1, 1, 1))
    reshaped_one_minus_sqrt_alpha_bar_t = jnp.reshape(
        jnp.take(one_minus_sqrt_alpha_bar, t), (-1, 1, 1, 1)
    )
    noisy_image = (
        reshaped_sqrt_alpha_bar_t * x_0 + reshaped_one_minus_sqrt_alpha_bar_t * noise
    )
    return noisy_image, noise


class Encoder(nn.Module):
    """VAE Encoder."""

    latent_dim: int
    filters: Sequence[int]
    kernels: Sequence[int]
    dense_layer_units: int

    @nn.compact
    def __call__(self, x):
        for i in range(len(self.filters)):
            x = nn.Conv(
                features=self.filters[i],
                kernel_size=(self.kernels[i], self.kernels[i]),
                padding="SAME",
                strides=(2, 2),
            )(x)
            x = nn.activation.PReLU()(x)
        mean_x = nn.Conv(features=1, kernel_size=(3, 3), padding="SAME")(x)
        logvar_x = nn.Conv(features=1, kernel_size=(3, 3), padding="SAME")(x)
        logvar_x = -nn.relu(logvar_x)
        return mean_x, logvar_x


def reparameterize(rng, mean, logvar):
    std = jnp.exp(0.5 * logvar)
    eps = random.normal(rng, logvar.shape)
    return mean + eps * std


class UNet(nn.Module):  # stand-in for diffdeb.models.UNet
    @nn.compact
    def __call__(self, inputs):
        x, t = inputs
        return nn.Conv(features=x.shape[-1], kernel_size=(3, 3))(x) * t.reshape(-1, 1, 1, 1)


@jax.vmap
def mse_loss_fn(prediction, truth):
    return jnp.sum((prediction - truth) ** 2)


@jax.jit
def eval_f_UNet(params, images, timestamps):
    def eval_model(unet_model):
        recon_images = unet_model((images[0], timestamps))
        mse_loss = mse_loss_fn(recon_images, images[1]).mean()
        return {"loss": mse_loss}

    return nn.apply(eval_model, UNet())({"params": params})


@jax.jit
def train_step_UNet(state, batch, timestamps):
    def loss_fn(params):
        recon_x = UNet().apply({"params": params}, (batch[0], timestamps))
        mse_loss = mse_loss_fn(recon_x, batch[1]).mean()
        return mse_loss

    loss, grads = jax.value_and_grad(loss_fn, argnums=0)(state.params)
    return state.apply_gradients(grads=grads), loss


@partial(
    jax.jit,
    static_argnames=[
        "latent_dim",
        "encoder_filters",
        "encoder_kernels",
        "dense_layer_units",
    ],
)
def get_latent_images(
    params,
    batch,
    z_rng,
    latent_dim,
    encoder_filters,
    encoder_kernels,
    dense_layer_units,
):

    encoder_model = Encoder(
        latent_dim=latent_dim,
        filters=encoder_filters,
        kernels=encoder_kernels,
        dense_layer_units=dense_layer_units,
    )
    mean, logvar = encoder_model.apply({"params": params}, batch)

    latent_images = reparameterize(
        mean=mean,
        logvar=logvar,
        rng=z_rng,
    )

    return latent_images


def train_and_evaluate_LDM(
    train_tfds,
    val_tfds,
    config,
    vae_params,
):
    """Train and evaulate pipeline."""

    # STEP 2: Train DM.
    @jax.jit
    def compute_av(cumulative, current, num_of_steps):
        return cumulative + current / num_of_steps

    rng = random.key(0)

    # Initialize the UNet in Encoder latent space.
    logging.info("Initializing model.")

    rng, key = random.split(rng)
    latent_images = get_latent_images(
        params=vae_params["encoder"],
        batch=jnp.ones((1, 8, 8, 6), jnp.float32),
        z_rng=key,
        latent_dim=config.vae_config.latent_dim,
        encoder_filters=config.vae_config.encoder_filters,
        encoder_kernels=config.vae_config.encoder_kernels,
        dense_layer_units=config.vae_config.dense_layer_units,
    )
    init_data = (
        latent_images,
        jnp.ones((1), jnp.float32),
    )
    rng, key = random.split(rng)
    params_UNet = UNet().init(key, init_data)["params"]

    # Create train state.
    state = train_state.TrainState.create(
        apply_fn=UNet().apply,
        params=params_UNet,
        tx=optax.chain(
            optax.clip(0.1),
            optax.adam(
                learning_rate=optax.exponential_decay(
                    config.diffusion_config.learning_rate,
                    transition_steps=config.diffusion_config.steps_per_epoch_train * 30,
                    decay_rate=0.1,
                    end_value=1e-7,
                ),
            ),
        ),
    )

    # Training epochs.
    logging.info("start training...")
    metrics = {"train loss": [], "val loss": []}

    for epoch in range(config.diffusion_config.num_epochs):
        train_ds = train_tfds.as_numpy_iterator()

        # Loop over training steps.
        current_epoch_train_loss = 0
        for _ in range(config.diffusion_config.steps_per_epoch_train):
            batch = next(train_ds)
            rng, key = random.split(rng)
            timestamps = random.randint(
                key,
                shape=(batch[0].shape[0],),
                minval=0,
                maxval=config.diffusion_config.timesteps,
            )

            # Generating the noise and noisy image for this batch.
            rng, key = random.split(rng)
            latent_batch = get_latent_images(
                params=vae_params["encoder"],
                batch=batch[0],
                z_rng=key,
                latent_dim=config.vae_config.latent_dim,
                encoder_filters=config.vae_config.encoder_filters,
                encoder_kernels=config.vae_config.encoder_kernels,
                dense_layer_units=config.vae_config.dense_layer_units,
            )
            noisy_images, noise = forward_noising(key, latent_batch, timestamps)  # expect: JIT502

            # Train step.
            state, batch_train_loss = train_step_UNet(
                state, (noisy_images, latent_batch), timestamps
            )

            # Compute average loss in this epoch.
            current_epoch_train_loss = compute_av(
                current_epoch_train_loss,
                batch_train_loss,
                config.diffusion_config.steps_per_epoch_train,
            )
            metrics["train loss"].append(current_epoch_train_loss)

        # Loop over validation steps.
        metrics["val loss"].append(0.0)
        for _ in range(config.diffusion_config.steps_per_epoch_val):
            val_ds = val_tfds.as_numpy_iterator()
            batch = next(val_ds)
            rng, key = random.split(rng)
            timestamps = random.randint(
                key,
                shape=(latent_batch.shape[0],),
                minval=0,
                maxval=config.diffusion_config.timesteps,
            )

            # Generating the noise and noisy image for this batch.
            rng, key = random.split(rng)
            latent_batch = get_latent_images(
                params=vae_params["encoder"],
                batch=batch[0],
                z_rng=key,
                latent_dim=config.vae_config.latent_dim,
                encoder_filters=config.vae_config.encoder_filters,
                encoder_kernels=config.vae_config.encoder_kernels,
                dense_layer_units=config.vae_config.dense_layer_units,
            )
            noisy_images, noise = forward_noising(key, latent_batch, timestamps)  # expect: JIT502

            # Eval step.
            batch_metrics = eval_f_UNet(
                state.params,
                (noisy_images, latent_batch),
                timestamps=timestamps,
            )

            # Compute average val loss in this epoch.
            metrics["val loss"][epoch] = compute_av(
                metrics["val loss"][epoch],
                batch_metrics["loss"],
                config.diffusion_config.steps_per_epoch_val,
            )

        logging.info(
            "\n\neval epoch: {}, train loss: {:.4f}, val loss: {:.4f}".format(
                epoch + 1,
                metrics["train loss"][epoch],
                metrics["val loss"][epoch],
            )
        )
    return state, metrics


if __name__ == "__main__":
    import inspect

    class _Data:
        def __init__(self, seed):
            x = np.random.default_rng(seed).random((4, 8, 8, 6), dtype=np.float32)
            self.batches = [(x, x)] * 3

        def as_numpy_iterator(self):
            return iter(self.batches)

    config = SimpleNamespace(
        vae_config=SimpleNamespace(
            latent_dim=16, encoder_filters=(4, 8), encoder_kernels=(3, 3), dense_layer_units=0
        ),
        diffusion_config=SimpleNamespace(
            timesteps=200, num_epochs=1, steps_per_epoch_train=2, steps_per_epoch_val=2,
            learning_rate=1e-4,
        ),
    )
    enc = Encoder(latent_dim=16, filters=(4, 8), kernels=(3, 3), dense_layer_units=0)
    vae_params = {"encoder": enc.init(random.key(1), jnp.ones((1, 8, 8, 6)))["params"]}

    # Record the key given to the encoder's reparameterisation and to forward_noising, and
    # the line of each forward_noising call.
    seen = []
    _orig_latent, _orig_noising = get_latent_images, forward_noising

    def _latent(**kw):
        seen.append(("z", kw["z_rng"], kw["batch"], kw["params"]))
        return _orig_latent(**kw)

    def _noising(key, x_0, t):
        line = inspect.currentframe().f_back.f_lineno
        seen.append(("noise", key, line))
        return _orig_noising(key, x_0, t)

    get_latent_images, forward_noising = _latent, _noising
    train_and_evaluate_LDM(_Data(0), _Data(1), config, vae_params)

    reused = {}
    for prev, cur in zip(seen, seen[1:]):
        if prev[0] == "z" and cur[0] == "noise":
            same = bool(jnp.all(random.key_data(prev[1]) == random.key_data(cur[1])))
            # the consequence: the diffusion noise is exactly the VAE's reparameterisation eps
            mean, logvar = enc.apply({"params": prev[3]}, prev[2])
            eps = (_orig_latent(params=prev[3], batch=prev[2], z_rng=prev[1], latent_dim=16,  # tolerate: JIT502
                                encoder_filters=(4, 8), encoder_kernels=(3, 3),
                                dense_layer_units=0) - mean) / jnp.exp(0.5 * logvar)
            _, noise = _orig_noising(cur[1], eps, jnp.zeros(eps.shape[0], jnp.int32))  # tolerate: JIT502
            reused[cur[2]] = same and bool(jnp.allclose(eps, noise, atol=1e-4))
    print("key reused at forward_noising lines:", reused)
    assert set(reused) == {229, 268}, reused
    assert all(reused.values()), reused
    # observed: line 229 forward_noising gets the key already used by get_latent_images; noise == latent eps
    # observed: line 268 same reuse in the validation loop; noise == latent eps
