# source: https://github.com/TugdualKerjan/HiFiGAN-for-JAX/blob/91d5c244a00e1d89d249fe7a1168ed7b648f24fe/hifigan/utils.py
#   (the jitted mel front end of a personal HiFiGAN vocoder in Equinox; hifigan/trainer.py
#   at the same commit applies it as `jax.vmap(mel_spec_base_jit)` inside the jitted loss)
# observed on jax 0.10.2 CPU: runs clean: stft_computation branches in Python on
#   `wav.ndim`, which is static for a tracer, and takes n_fft and hop_length as static
#   arguments; the mel filterbank and window are module constants computed once. The
#   jitted mel of a (1, 8192) clip has shape (80, 32); three clips of one shape trace
#   mel_spec_base_jit once, and jax.vmap(mel_spec_base_jit) over a batch (as the trainer
#   uses it, also under jax.jit) equals the per-clip results. Kept: create_mel_filterbank,
#   stft_computation and mel_spec_base_jit as written. Trimmed: the librosa-based
#   `mel_spec_base` (librosa is not installed here) and the jaxtyping annotations of
#   mel_spec_base_jit (`Float[Array, ...]`, dropped with their import). Added: the
#   __main__ block.
# gap: exemption-vs-JAX
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

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


if __name__ == "__main__":
    traces = []
    rng = np.random.default_rng(0)
    clips = [jnp.asarray(rng.uniform(-1, 1, size=(1, 8192)).astype(np.float32)) for _ in range(3)]

    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: traces.append(name) if name == "/jax/core/compile/jaxpr_trace_duration" else None)
    mels = [mel_spec_base_jit(clips[0])]
    n_traces = len(traces)
    assert n_traces >= 1
    mels += [mel_spec_base_jit(c) for c in clips[1:]]
    assert len(traces) == n_traces, traces  # cached: no new trace for the same shape
    assert all(m.shape == (80, 32) and bool(jnp.all(jnp.isfinite(m))) for m in mels)

    batch = jnp.stack(clips)  # (3, 1, 8192), as the trainer's wavs
    batched = jax.jit(jax.vmap(mel_spec_base_jit))(batch)
    assert batched.shape == (3, 80, 32)
    for m, b in zip(mels, batched):
        assert jnp.allclose(m, b, atol=1e-4)
    # a 1-D input takes the other ndim branch of stft_computation
    spec = stft_computation(clips[0][0], 1024, 256)
    assert spec.shape == (1, 32 - 3, 513), spec.shape
    print("OK: mel front end jitted once per shape, vmapped batch matches")
