# source: https://github.com/TugdualKerjan/HiFiGAN-for-JAX/blob/91d5c244a00e1d89d249fe7a1168ed7b648f24fe/train_hifigan.py
#   (with hifigan/trainer.py and hifigan/utils.py at the same commit: a personal HiFiGAN
#   vocoder rewrite in Equinox, part of the author's "JAXTTS" series)
# observed on jax 0.10.2 CPU: make_step is `eqx.filter_jit(donate="all")`, so every array
#   leaf of its arguments is donated, the two discriminators included. The training loop
#   unpacks the updated discriminators into `period_disc` and `scale_disc` but keeps handing
#   `discriminator_p` and `discriminator_s` to make_step, so the discriminators are never
#   trained and the second step passes the buffers the first step deleted: ValueError:
#   INVALID_ARGUMENT: Invalid buffer passed to Execute() ... Buffer has been deleted or
#   donated, raised at the make_step call. Kept: trainer.py's calculate_gan_loss,
#   calculate_disc_loss and make_step, utils.py's mel filterbank, stft_computation and
#   mel_spec_base_jit, and the training script's setup and loop. Trimmed: the dataset
#   preparation (`transform`, the LJ Speech download and `save_to_disk`), the persistent
#   compilation-cache settings, the figure logging every 5 steps (matplotlib), the
#   checkpoint save, and utils.py's librosa `mel_spec_base`. Added: small stand-ins for
#   Generator, MultiPeriodDiscriminator and MultiScaleDiscriminator (same call interface:
#   a 1x1 conv to 256 samples per mel frame; tiny conv discriminators returning
#   (preds, feature maps)), a stand-in dataset of random 8-frame mels and 2048-sample clips
#   yielding JAX arrays as the `jax`-formatted dataset does, a no-op SummaryWriter, and
#   BATCH_SIZE 256 -> 2. Also trimmed: the script's `config.update("jax_debug_nans", True)`,
#   a debugging switch under which JAX does not donate buffers at all (with it on, the loop
#   runs on and silently never trains the discriminators, as make_step is always handed the
#   initial ones).
# gap: other
import datetime
import json
import os
import time
from collections import defaultdict
from functools import partial

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax import lax


# --- hifigan/utils.py ---------------------------------------------------------------
# Pre-compute static values
SAMPLE_RATE = 22050
N_FFT = 1024
HOP_LENGTH = 256
WIN_LENGTH = 1024
N_MELS = 80
WINDOW = jnp.hanning(WIN_LENGTH)
PAD_SIZE = int((N_FFT - HOP_LENGTH) / 2)


# Pre-compute mel filterbank (this is static)
def create_mel_filterbank():
    f_min = 0.0
    f_max = 8000.0
    n_freqs = (N_FFT // 2) + 1

    # Mel points calculation
    m_min = 2595.0 * jnp.log10(1.0 + (f_min / 700.0))
    m_max = 2595.0 * jnp.log10(1.0 + (f_max / 700.0))
    m_pts = jnp.linspace(m_min, m_max, N_MELS + 2)
    f_pts = 700.0 * (10.0 ** (m_pts / 2595.0) - 1.0)

    # Create filterbank
    all_freqs = jnp.linspace(0, SAMPLE_RATE // 2, n_freqs)
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts[jnp.newaxis, ...] - all_freqs[..., jnp.newaxis]
    down_slopes = (-1.0 * slopes[:, :-2]) / f_diff[:-1]
    up_slopes = slopes[:, 2:] / f_diff[1:]
    fb = jnp.maximum(0.0, jnp.minimum(down_slopes, up_slopes))

    return fb


# Pre-compute this once
MEL_FILTERBANK = create_mel_filterbank()


@partial(jax.jit, static_argnames=("n_fft", "hop_length"))
def stft_computation(wav, n_fft, hop_length):
    """Combined STFT computation"""
    if wav.ndim == 1:
        wav = wav.reshape(1, -1, 1)
    elif wav.ndim == 2:
        wav = wav[..., None]

    # Extract frames
    frames = lax.conv_general_dilated_patches(
        lhs=wav,
        filter_shape=(n_fft,),
        window_strides=(hop_length,),
        padding="VALID",
        dimension_numbers=jax.lax.ConvDimensionNumbers(
            lhs_spec=(0, 2, 1), rhs_spec=(2, 1, 0), out_spec=(0, 2, 1)
        ),
    )

    # Apply window and compute FFT
    frames = frames * WINDOW[None, None, :]
    output = jnp.fft.fft(frames, n=n_fft, axis=-1)
    return output[..., : (n_fft // 2) + 1]


@jax.jit
def mel_spec_base_jit(wav):
    """Mel transform, takes in 22050 Hz signal"""
    # Pad the input
    wav = jnp.pad(wav, ((0, 0), (PAD_SIZE, PAD_SIZE)), mode="reflect")

    # Compute STFT
    spec = stft_computation(wav, N_FFT, HOP_LENGTH)

    # Convert to power spectrum
    spec_power = jnp.sqrt(jnp.real(spec) ** 2 + jnp.imag(spec) ** 2 + 1e-9)

    # Apply mel filterbank and log transform
    mel = jnp.matmul(spec_power, MEL_FILTERBANK, precision="highest")
    mel = jnp.log(jnp.clip(mel, min=1e-5))

    # Final shape adjustments
    mel = jnp.squeeze(mel, 0)
    mel = jnp.swapaxes(mel, axis1=0, axis2=1)
    return mel


# --- stand-ins for hifigan/generator.py and hifigan/discriminators.py ----------------
class Generator(eqx.Module):
    proj: eqx.nn.Conv1d

    def __init__(self, channels_in, channels_out, key=None):
        self.proj = eqx.nn.Conv1d(channels_in, channels_out * HOP_LENGTH, 1, key=key)

    def __call__(self, x):
        return jnp.tanh(self.proj(x).T.reshape(1, -1))


class _StandInDisc(eqx.Module):
    layers: list

    def __init__(self, key):
        k1, k2 = jax.random.split(key)
        self.layers = [eqx.nn.Conv1d(1, 4, 15, 4, padding=7, key=k1),
                       eqx.nn.Conv1d(4, 1, 3, 1, padding=1, key=k2)]

    def __call__(self, x):
        fmap = []
        for layer in self.layers:
            x = jax.nn.leaky_relu(layer(x), 0.1)
            fmap.append(x)
        return x.reshape(1, -1), fmap


class MultiScaleDiscriminator(eqx.Module):
    discriminators: list

    def __init__(self, key=None):
        self.discriminators = [_StandInDisc(k) for k in jax.random.split(key, 3)]

    def __call__(self, x):
        preds, fmaps = [], []
        for disc in self.discriminators:
            pred, fmap = disc(x)
            preds.append(pred)
            fmaps.append(fmap)
        return preds, fmaps


class MultiPeriodDiscriminator(MultiScaleDiscriminator):
    pass


# --- hifigan/trainer.py ---------------------------------------------------------------
@eqx.filter_jit(donate="all-except-first")
@eqx.filter_value_and_grad
def calculate_gan_loss(gan, period, scale, x, y):
    gan_result = jax.vmap(gan)(x)  # TODO check this magic number
    # print(gan_result.shape)
    mel_gan_result = jax.vmap(mel_spec_base_jit)(gan_result)

    fake_scale, fake_feature_map_period = jax.vmap(scale)(gan_result)
    fake_period, fake_feature_map_scale = jax.vmap(period)(gan_result)

    _, real_feature_map_period = jax.vmap(scale)(y)
    _, real_feature_map_scale = jax.vmap(period)(y)

    loss = jnp.mean(jax.numpy.abs(mel_gan_result - x)) * 45
    for fake in fake_period:
        loss += jnp.mean((fake - 1) ** 2)
    for fake in fake_scale:
        loss += jnp.mean((fake - 1) ** 2)

    for a, b in zip(fake_feature_map_period, real_feature_map_period, strict=False):
        for c, d in zip(a, b, strict=False):
            loss += jnp.mean(jnp.abs(c - d))

    for a, b in zip(fake_feature_map_scale, real_feature_map_scale, strict=False):
        for c, d in zip(a, b, strict=False):
            loss += jnp.mean(jnp.abs(c - d))

    # G_loss_scale = jax.numpy.mean((fake_scale - jax.numpy.ones(batch_size)) ** 2)

    return loss  # TODO add config for the 30


@eqx.filter_jit
@eqx.filter_value_and_grad
def calculate_disc_loss(model, fake, real):
    fake_result, _ = jax.vmap(model)(fake)
    real_result, _ = jax.vmap(model)(real)
    loss = 0
    for fake_res, real_res in zip(fake_result, real_result, strict=False):
        fake_loss = jnp.mean((fake_res) ** 2)
        real_loss = jnp.mean((real_res - 1) ** 2)
        loss += fake_loss + real_loss

    return loss


@eqx.filter_jit(donate="all")
def make_step(
    gan,
    period_disc,
    scale_disc,
    x,
    y,
    gan_optim,
    period_optim,
    scale_optim,
    optim1,
    optim2,
    optim3,
):
    result = jax.vmap(gan)(x)

    loss_scale, grads_scale = calculate_disc_loss(scale_disc, result, y)
    updates, scale_optim = optim2.update(grads_scale, scale_optim, scale_disc)
    scale_disc = eqx.apply_updates(scale_disc, updates)

    loss_period, grads_period = calculate_disc_loss(period_disc, result, y)
    updates, period_optim = optim3.update(grads_period, period_optim, period_disc)
    period_disc = eqx.apply_updates(period_disc, updates)

    loss_gan, grads_gan = calculate_gan_loss(gan, period_disc, scale_disc, x, y)
    updates, gan_optim = optim1.update(grads_gan, gan_optim, gan)
    gan = eqx.apply_updates(gan, updates)

    return (
        loss_gan,
        loss_period,
        loss_scale,
        gan,
        period_disc,
        scale_disc,
        gan_optim,
        period_optim,
        scale_optim,
        jax.vmap(mel_spec_base_jit)(result),
    )


# --- stand-ins for the dataset and tensorboardX ------------------------------------------
class _StandInDataset:
    def __init__(self, n):
        rng = np.random.default_rng(0)
        self.mel = rng.normal(size=(n, 80, 8)).astype(np.float32)
        self.audio = rng.uniform(-1, 1, size=(n, 1, 8 * 256)).astype(np.float32)

    def shuffle(self, seed):
        return self

    def iter(self, batch_size):
        for i in range(0, len(self.mel), batch_size):
            yield {"mel": jnp.asarray(self.mel[i:i + batch_size]),
                   "audio": jnp.asarray(self.audio[i:i + batch_size])}


class SummaryWriter:
    def __init__(self, log_dir=None):
        pass

    def add_scalar(self, *args):
        pass


# --- train_hifigan.py -------------------------------------------------------------------
SAMPLE_RATE = 22050
SEGMENT_SIZE = 8192
RANDOM = jax.random.key(0)
LEARNING_RATE = 2e-4
CHECKPOINT_PATH = "checkpoints"
INIT_FROM = "scratch"

N_EPOCHS = 1000
BATCH_SIZE = 2

train_data = _StandInDataset(8)

k1, k2, k3 = jax.random.split(RANDOM, 3)
generator = Generator(channels_in=80, channels_out=1, key=k1)
discriminator_s = MultiScaleDiscriminator(key=k2)
discriminator_p = MultiPeriodDiscriminator(key=k3)

if INIT_FROM == "scratch":
    print("Starting training from scratch")

    # current_step = 0
    starting_epoch = 0

optim1 = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(LEARNING_RATE, b1=0.8, b2=0.99))

gan_optim = optim1.init(generator)  # type: ignore

optim2 = optax.adam(1e-3)
scale_optim = optim2.init(discriminator_s)  # type: ignore

optim3 = optax.adam(1e-3)
period_optim = optim3.init(discriminator_p)  # type: ignore

writer = SummaryWriter(
    log_dir="./runs/" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
)

step = 0
# Timing stats dictionary
timing_stats = defaultdict(list)

for epoch in range(starting_epoch, N_EPOCHS):
    epoch_start = time.time()
    wait_start = time.time()
    train_data = train_data.shuffle(seed=epoch)
    for _, batch in enumerate(train_data.iter(batch_size=BATCH_SIZE)):

        wait_time = time.time() - wait_start

        # Measure data loading time
        data_load_start = time.time()
        mels, wavs = batch["mel"], batch["audio"]
        data_load_time = time.time() - data_load_start

        # Measure training step time
        train_start = time.time()
        results = make_step(  # expect: JIT504
            generator,
            discriminator_p,  # tolerate: JIT504
            discriminator_s,  # tolerate: JIT504
            mels,
            wavs,
            gan_optim,
            period_optim,
            scale_optim,
            optim1,
            optim2,
            optim3,
        )
        # Force sync for accurate timing
        jax.block_until_ready(results)
        train_time = time.time() - train_start

        # Measure logging time
        log_start = time.time()
        (
            gan_loss,
            period_loss,
            scale_loss,
            generator,
            period_disc,
            scale_disc,
            gan_optim,
            period_optim,
            scale_optim,
            output,
        ) = results

        step += 1
        writer.add_scalar("Loss/Generator", gan_loss, step)
        writer.add_scalar("Loss/Multi Period", period_loss, step)
        writer.add_scalar("Loss/Multi Scale", scale_loss, step)
        log_time = time.time() - log_start

        # Store timing stats
        timing_stats["data_loading"].append(data_load_time)
        timing_stats["training"].append(train_time)
        timing_stats["logging"].append(log_time)
        timing_stats["wait_time"].append(wait_time)

        # Print running averages every 10 steps
        # if i % 1 == 0:
        print("\nTiming stats (last 10 steps):")
        print(f"Data loading: {np.mean(timing_stats['data_loading'][-1:]):.3f}s")
        print(f"Training: {np.mean(timing_stats['training'][-1:]):.3f}s")
        print(f"Logging: {np.mean(timing_stats['logging'][-1:]):.3f}s")
        print(f"Iter wait: {np.mean(timing_stats['wait_time'][-1:]):.3f}s")

        wait_start = time.time()
