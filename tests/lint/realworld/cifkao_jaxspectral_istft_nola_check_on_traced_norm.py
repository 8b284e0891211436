# source: https://github.com/cifkao/jax-spectral/blob/305956306d760c304f23f9b7ae55737179731e93/jax_spectral/spectral.py
#   (a port of scipy.signal's stft/istft to JAX, before commit 43085eb "Check NOLA
#   condition only when not jitting")
# observed on jax 0.10.2 CPU: jax.jit(istft)(Zxx) raises TracerBoolConversionError at the
#   NOLA check `if np.sum(norm > 1e-10) != len(norm)`: `np` is jax.numpy, and under jit the
#   normalisation built from the window alone (np.zeros, .at[].add of win**2) is a tracer,
#   although it does not depend on the traced input.
#   Added: a stand-in for the repository's get_window (its windows module is a 2,000-line
#   port of scipy.signal.windows) for the Hann window only; jax.ops.index_add(x,
#   jax.ops.index[...], v), removed from JAX, spelled x.at[...].add(v); SciPy's long
#   docstring left out; the __main__ block, which makes an STFT with scipy.signal.stft
#   and inverts it under jax.jit.
# gap: omnistaging
import jax
import jax.numpy as np
import warnings


def get_window(window, Nx, fftbins=True):
    # stand-in for the repository's jax_spectral.windows.get_window (a jax.numpy port of
    # scipy.signal.get_window) for the one window used here: the DFT-even Hann window
    assert window == 'hann' and fftbins
    fac = np.linspace(-np.pi, np.pi, Nx + 1)[:-1]
    return 0.5 + 0.5 * np.cos(fac)


def istft(Zxx, fs=1.0, window='hann', nperseg=None, noverlap=None, nfft=None,
          input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2):
    r"""
    Perform the inverse Short Time Fourier transform (iSTFT).

    (SciPy's docstring, parameters, notes and examples left out here)
    """

    # Make sure input is an ndarray of appropriate complex dtype
    Zxx = np.asarray(Zxx) + 0j
    freq_axis = int(freq_axis)
    time_axis = int(time_axis)

    if Zxx.ndim < 2:
        raise ValueError('Input stft must be at least 2d!')

    if freq_axis == time_axis:
        raise ValueError('Must specify differing time and frequency axes!')

    nseg = Zxx.shape[time_axis]

    if input_onesided:
        # Assume even segment length
        n_default = 2*(Zxx.shape[freq_axis] - 1)
    else:
        n_default = Zxx.shape[freq_axis]

    # Check windowing parameters
    if nperseg is None:
        nperseg = n_default
    else:
        nperseg = int(nperseg)
        if nperseg < 1:
            raise ValueError('nperseg must be a positive integer')

    if nfft is None:
        if (input_onesided) and (nperseg == n_default + 1):
            # Odd nperseg, no FFT padding
            nfft = nperseg
        else:
            nfft = n_default
    elif nfft < nperseg:
        raise ValueError('nfft must be greater than or equal to nperseg.')
    else:
        nfft = int(nfft)

    if nfft != nperseg:
        # n=nfft not supported by JAX
        raise ValueError('nfft must be equal to nperseg')

    if noverlap is None:
        noverlap = nperseg//2
    else:
        noverlap = int(noverlap)
    if noverlap >= nperseg:
        raise ValueError('noverlap must be less than nperseg.')
    nstep = nperseg - noverlap

    # Rearrange axes if necessary
    if time_axis != Zxx.ndim-1 or freq_axis != Zxx.ndim-2:
        # Turn negative indices to positive for the call to transpose
        if freq_axis < 0:
            freq_axis = Zxx.ndim + freq_axis
        if time_axis < 0:
            time_axis = Zxx.ndim + time_axis
        zouter = list(range(Zxx.ndim))
        for ax in sorted([time_axis, freq_axis], reverse=True):
            zouter.pop(ax)
        Zxx = np.transpose(Zxx, zouter+[freq_axis, time_axis])

    # Get window as array
    if isinstance(window, str) or type(window) is tuple:
        win = get_window(window, nperseg)
    else:
        win = np.asarray(window)
        if len(win.shape) != 1:
            raise ValueError('window must be 1-D')
        if win.shape[0] != nperseg:
            raise ValueError('window must have length of {0}'.format(nperseg))

    ifunc = np.fft.irfft if input_onesided else np.fft.ifft
    xsubs = ifunc(Zxx, axis=-2)[..., :nperseg, :]  # n=nfft

    # Initialize output and normalization arrays
    outputlength = nperseg + (nseg-1)*nstep
    x = np.zeros(list(Zxx.shape[:-2])+[outputlength], dtype=xsubs.dtype)
    norm = np.zeros(outputlength, dtype=xsubs.dtype)

    if np.result_type(win, xsubs) != xsubs.dtype:
        win = win.astype(xsubs.dtype)

    xsubs *= win.sum()  # This takes care of the 'spectrum' scaling

    # Construct the output from the ifft segments
    # This loop could perhaps be vectorized/strided somehow...
    for ii in range(nseg):
        # Window the ifft
        x = x.at[..., ii*nstep:ii*nstep+nperseg].add(
            xsubs[..., ii] * win)
        # x[..., ii*nstep:ii*nstep+nperseg] += xsubs[..., ii] * win
        norm = norm.at[..., ii*nstep:ii*nstep+nperseg].add(
            win**2)
        # norm[..., ii*nstep:ii*nstep+nperseg] += win**2

    # Remove extension points
    if boundary:
        x = x[..., nperseg//2:-(nperseg//2)]
        norm = norm[..., nperseg//2:-(nperseg//2)]

    # Divide out normalization where non-tiny
    if np.sum(norm > 1e-10) != len(norm):  # expect: JIT101
        warnings.warn("NOLA condition failed, STFT may not be invertible")
    x /= np.where(norm > 1e-10, norm, 1.0)

    if input_onesided:
        x = x.real

    # Put axes back
    if x.ndim > 1:
        if time_axis != Zxx.ndim-1:
            if freq_axis < time_axis:
                time_axis -= 1
            x = np.rollaxis(x, -1, time_axis)

    time = np.arange(x.shape[0])/float(fs)
    return time, x


if __name__ == "__main__":
    import numpy as onp
    import scipy.signal

    fs = 1000.0
    t = onp.arange(512) / fs
    sig = onp.sin(2 * onp.pi * 50 * t) + 0.3 * onp.cos(2 * onp.pi * 120 * t)
    _, _, Zxx = scipy.signal.stft(sig, fs=fs, nperseg=64)
    _, ref = scipy.signal.istft(Zxx, fs=fs, nperseg=64)
    _, x = jax.jit(istft)(np.asarray(Zxx))
