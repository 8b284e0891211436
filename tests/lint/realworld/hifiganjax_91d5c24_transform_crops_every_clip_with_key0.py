# source: https://github.com/TugdualKerjan/HiFiGAN-for-JAX/blob/91d5c244a00e1d89d249fe7a1168ed7b648f24fe/train_hifigan.py
#   (`transform`, the dataset preparation of a personal HiFiGAN vocoder in Equinox, mapped
#   over LJ Speech; mel_spec_base_jit and its helpers from hifigan/utils.py at the same
#   commit. The author's Audio-VQVAE-for-JAX repository carries the same function.)
# observed on jax 0.10.2 CPU: transform builds `k = jax.random.key(0)` for every sample (the
#   split of the global RANDOM is commented out above it), so every clip long enough to crop
#   draws its start from the same key: the 4 clips of 20000 samples, different audio, are
#   all cropped at the very same offset (and every clip of a given length always would be),
#   where split keys give 4 different offsets. Kept: transform and the mel front end as
#   written. Trimmed: the training script after the dataset map (in the sibling file of this
#   batch), utils.py's librosa `mel_spec_base`. Added: a stand-in for
#   librosa.util.normalize (peak normalisation) and librosa.resample (not reached), a list
#   of stand-in LJ Speech samples (22050 Hz `audio` dicts holding JAX arrays, as the
#   `jax`-formatted dataset gives them) mapped with a list comprehension in place of
#   `datasets.map`, and the __main__ block.
# gap: other
from functools import partial
from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

# --- stand-ins for librosa --------------------------------------------------------------
def normalize(x):
    x = np.asarray(x)
    return x / np.max(np.abs(x))


librosa = SimpleNamespace(resample=lambda *a, **k: None)

# --- hifigan/utils.py -------------------------------------------------------------------
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


# --- train_hifigan.py -------------------------------------------------------------------
SAMPLE_RATE = 22050
SEGMENT_SIZE = 8192
RANDOM = jax.random.key(0)


def transform(sample):
    """Based off the original code that can be found here: https://github.com/jik876/hifi-gan/blob/master/meldataset.py

    Args:
        sample (dict): dict entry in HF Dataset

    Returns:
        dict: updated entry
    """
    k = jax.random.key(0)  # expect: JIT502
    # global RANDOM, SAMPLE_RATE

    # RANDOM, k = jax.random.split(RANDOM)
    wav = sample["audio"]["array"]
    if sample["audio"]["sampling_rate"] != SAMPLE_RATE:
        librosa.resample(wav, sample["audio"]["sampling_rate"], SAMPLE_RATE)
    wav = normalize(wav) * 0.95
    if wav.shape[0] >= SEGMENT_SIZE:
        max_audio_start = wav.shape[0] - SEGMENT_SIZE
        audio_start = jax.random.randint(k, (1,), 0, max_audio_start)[0]  # tolerate: JIT502
        wav = wav[audio_start : audio_start + SEGMENT_SIZE]

    wav = np.expand_dims(wav, 0)

    mel = mel_spec_base_jit(wav=wav)
    # print(mel.shape)
    return {"mel": np.array(mel), "audio": np.array(wav), "sample_rate": SAMPLE_RATE}


if __name__ == "__main__":
    # observed: line 133 every clip of 20000 samples is cropped at the same offset
    rng = np.random.default_rng(0)
    clips = [jnp.asarray(rng.uniform(-1, 1, size=20000).astype(np.float32)) for _ in range(4)]
    lj_speech_data = [{"audio": {"array": c, "sampling_rate": SAMPLE_RATE}} for c in clips]
    lj_speech_data = [transform(sample) for sample in lj_speech_data]

    starts = []
    for sample, out in zip(clips, lj_speech_data):
        assert out["audio"].shape == (1, SEGMENT_SIZE) and out["mel"].shape == (80, 32)
        full = normalize(sample) * 0.95
        start = int(np.flatnonzero(full == out["audio"][0, 0])[0])
        assert np.array_equal(full[start:start + SEGMENT_SIZE], out["audio"][0])
        starts.append(start)
    assert len(set(starts)) == 1, starts  # four different clips, one crop offset

    # what the commented-out split would give: a fresh key per clip, different offsets
    fresh = [int(jax.random.randint(k, (1,), 0, 20000 - SEGMENT_SIZE)[0])
             for k in jax.random.split(RANDOM, 4)]
    assert len(set(fresh)) == 4, fresh
    print("OK: every clip cropped at offset", starts[0], "; split keys give", fresh)
