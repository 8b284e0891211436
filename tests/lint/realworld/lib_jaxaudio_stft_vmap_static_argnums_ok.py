# source: https://github.com/machineko/jaxaudio/blob/7320a4ecd8f267e206c36be3551f919faa08d3b0/jax_audio/utils/audio_utils.py
#   (jax_audio, a librosa-compatible STFT in jax.numpy, pointed to in jax-ml/jax#9411; its
#   transforms.py builds `jit(vmap(stft, in_axes=(0, None, None, None)), static_argnums=(1, 2, 3))`
#   for batches and its benchmarks call `jit(audio_utils.stft)`)
# observed on jax 0.10.2 CPU: the jitted, vmapped stft with static n_fft/hop_length/win_length,
#   the plain jit(stft), and jit(amplitude_to_db) run clean: `if not win_length`, `int(n_fft // 2)`,
#   the frame count from new_y.shape and the top_db/a_min checks are Python values at trace time;
#   a second batch of the same shape does not compile again, and the batched result equals
#   the unbatched one.
# gap: exemption-vs-JAX
# added: the imports (the file's wave/ParameterError imports and the read/write/GPU helpers
#   dropped; ParameterError replaced by ValueError), and the __main__ block, which builds the
#   stft_parser of transforms.py's MelGenBasic.__post_init__ and calls the jitted functions.
import warnings
from functools import partial

import jax
import jax.numpy as jnp
from jax import jit, vmap
def get_window(win_name: str, win_length: int, **kwargs) -> jnp.ndarray:
    """
    Args:
        win_name: name of the window function (must exist in jax repository)
        win_length: len of the window
        **kwargs: optional extra arguments for function

    Returns:
        jnp.ndarray -> The window returned by window function
    """
    win_func = getattr(jnp, win_name, None)  # get function call if exists
    if win_func:
        return win_func(win_length, **kwargs)
    else:
        raise NotImplementedError(f"{win_name} isn't yet implemented in jax")


def pad_center(data: jnp.ndarray, size: int, axis=-1, **kwargs) -> jnp.ndarray:
    """
    It is copy of librosa pad_center transformed to work with jax
    Warning this is pure function
    https://github.com/librosa/librosa


    Wrapper for jnp.pad to automatically center an array prior to padding.
    >>> # Generate a vector
    >>> data = jnp.ones(5)
    >>> pad_center(data, 10, mode='constant')
    array([ 0.,  0.,  1.,  1.,  1.,  1.,  1.,  0.,  0.,  0.])

    >>> # Pad a matrix along its first dimension
    >>> data = jnp.ones((3, 5))
    >>> pad_center(data, 7, axis=0)
    array([[ 0.,  0.,  0.,  0.,  0.],
           [ 0.,  0.,  0.,  0.,  0.],
           [ 1.,  1.,  1.,  1.,  1.],
           [ 1.,  1.,  1.,  1.,  1.],
           [ 1.,  1.,  1.,  1.,  1.],
           [ 0.,  0.,  0.,  0.,  0.],
           [ 0.,  0.,  0.,  0.,  0.]])
    >>> # Or its second dimension
    >>> pad_center(data, 7, axis=1)
    array([[ 0.,  1.,  1.,  1.,  1.,  1.,  0.],
           [ 0.,  1.,  1.,  1.,  1.,  1.,  0.],
           [ 0.,  1.,  1.,  1.,  1.,  1.,  0.]])

    Parameters
    ----------
    data : jnp.ndarray
        Vector to be padded and centered

    size : int >= len(data) [scalar]
        Length to pad `data`

    axis : int
        Axis along which to pad and center the data

    kwargs : additional keyword arguments
      arguments passed to `jnp.pad()`

    Returns
    -------
    data_padded : jnp.ndarray
        `data` centered and padded to length `size` along the
        specified axis
    """

    kwargs.setdefault("mode", "constant")

    n = data.shape[axis]

    lpad = int((size - n) // 2)

    lengths = [(0, 0)] * data.ndim
    lengths[axis] = (lpad, int(size - n - lpad))
    if lpad < 0:
        raise BaseException(f"Target size ({size}) must be at least input size {n}")

    return jnp.pad(data, lengths, **kwargs)


def stft(
    y: jnp.ndarray,
    n_fft=1024,
    hop_length=256,
    win_length=1024,
    window="hanning",
    pad_mode="reflect",
) -> jnp.ndarray:
    """
        Short-time Fourier transform (STFT). based of librosa stft version works with jax numpy arrays
        (both gpu and cpu)

        Warning This is pure function and this function does not split array using strides so without
        jit or gpu usage it can be a lot slower

        original repo -> https://github.com/librosa/librosa

    Args:
        y: input signal

        n_fft:
        The number of rows in the STFT matrix ``D`` is ``(1 + n_fft/2)``.
        The default value, ``n_fft=2048`` samples, corresponds to a physical
        duration of 93 milliseconds at a sample rate of 22050 Hz, i.e. the
        default sample rate in librosa. This value is well adapted for music
        signals. However, in speech processing, the recommended value is 512,
        corresponding to 23 milliseconds at a sample rate of 22050 Hz.
        In any case, we recommend setting ``n_fft`` to a power of two for
        optimizing the speed of the fast Fourier transform (FFT) algorithm.

        hop_length: number of audio samples between adjacent STFT columns.

        win_length: Each frame of audio is windowed by ``window`` of length ``win_length``

        window: string a jax.numpy supported windowing method

        center:  If ``True``, the signal ``y`` is padded so that frame
        ``D[:, t]`` is centered at ``y[t * hop_length]``.

        pad_mode: jax.numpy supported padding function

    Returns: jnp.ndarray [shape=(1 + n_fft/2, n_frames), dtype=complex64]
        Complex-valued matrix of short-term Fourier transform
        coefficients.

    """

    if not win_length:
        win_length = n_fft

    if not hop_length:
        hop_length = int(win_length // 4)

    # get window function
    fft_window = get_window(window, win_length)

    # Pad the window out to n_fft size
    fft_window = pad_center(fft_window, n_fft)

    # Reshape so that the window can be broadcast
    fft_window = fft_window.reshape((-1, 1))

    new_y = jnp.pad(y, int(n_fft // 2), mode=pad_mode)

    n_frames = 1 + (new_y.shape[-1] - win_length) // hop_length

    y_frames = new_y[
        jnp.arange(n_fft)[:, None] + hop_length * jnp.arange(n_frames)[None, :]
    ]

    return jnp.fft.rfft(fft_window * y_frames, axis=0)


def power_to_db(power, ref=1.0, a_min=1e-10, top_db=80.0):
    if a_min <= 0:
        raise ValueError("a_min must be strictly positive")

    if jnp.issubdtype(power.dtype, jnp.complexfloating):
        warnings.warn(
            "power_to_db was called on complex input so phase "
            "information will be discarded. To suppress this warning, "
            "call power_to_db(np.abs(D)**2) instead."
        )
        magnitude = jnp.abs(power)
    else:
        magnitude = power

    ref_value = jnp.abs(ref)

    log_spec = 10.0 * jnp.log10(jnp.maximum(a_min, magnitude))
    log_spec -= 10.0 * jnp.log10(jnp.maximum(a_min, ref_value))

    if top_db is not None:
        if top_db < 0:
            raise ValueError("top_db must be non-negative")
        log_spec = jnp.maximum(log_spec, log_spec.max() - top_db)

    return log_spec


def amplitude_to_db(
    amplitude: jnp.ndarray, ref: float = 1.0, a_min: float = 1e-5, top_db: float = 80.0
) -> jnp.ndarray:
    """
    librosa based amplitude_to_db converted to jax

    Convert an amplitude spectrogram to dB-scaled spectrogram.

    This is equivalent to ``power_to_db(power**2)``, but is provided for convenience.

    Args:
        amplitude: input amplitude
        ref:
        a_min: minimum threshold for ``amplitude`` and ``ref``
        top_db:  float >= 0 [scalar]
        threshold the output at ``top_db`` below the peak:

    Returns:
        ``amplitude`` measured in dB

    """

    ref_value = jnp.abs(ref)

    magnitude = jnp.abs(amplitude)

    power = jnp.square(magnitude)

    return power_to_db(power, ref=ref_value ** 2, a_min=a_min ** 2, top_db=top_db)


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None)

    # as MelGenBasic.__post_init__ with use_vmap=True
    stft_parser = partial(
        jit(vmap(stft, in_axes=(0, None, None, None)),
            static_argnums=(1, 2, 3)))
    filter_length, hop_length, win_length = 2048, 256, 1024
    batch = jax.random.uniform(jax.random.key(0), (2, 8192), minval=-1, maxval=1)
    magnitudes = jnp.abs(stft_parser(batch, filter_length, hop_length, win_length))
    batch2 = batch * 0.5
    n = len(compiles)
    spec2 = stft_parser(batch2, filter_length, hop_length, win_length)
    assert len(compiles) == n
    assert n > 0 and magnitudes.shape[:2] == (2, filter_length // 2 + 1)
    single = jnp.abs(stft(batch[0], filter_length, hop_length, win_length))
    assert jnp.allclose(magnitudes[0], single, atol=1e-3)

    # as test_benchmarks_cpu.test_jax_stft_jitted
    jitted = jit(stft)
    out = jitted(batch[1])
    db = jit(amplitude_to_db)(jnp.abs(out))
    assert db.shape == out.shape and bool(jnp.isfinite(db).all())
