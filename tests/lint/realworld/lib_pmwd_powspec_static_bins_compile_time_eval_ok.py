# source: https://github.com/eelregit/pmwd/blob/f4c20bba9a7092fd69e6626f7c859f03fa130286/pmwd/spec_util.py
#   (pmwd, the differentiable cosmological particle-mesh code: powspec as the commit "Fix
#   powspec round-off error problem and add jit" leaves it, jitted with the bin choice static
#   and the bin edges computed under ensure_compile_time_eval.) Added: rfftnfreq from
#   pmwd/pm_util.py and bincount from pmwd/util.py at the same commit, in place of the two
#   pmwd imports, and the `__main__` block.
# observed on jax 0.10.2 CPU: powspec compiles once per (shape, bins, ...) and runs with log
#   bins (complex, the default), linear bins (float) and explicit bin edges (a tuple), for
#   auto and cross spectra, a traced deconv power and a batch of fields reduced by sum; the
#   `.item()` calls run on concrete values inside ensure_compile_time_eval, `if g is not None`
#   / `if deconv is not None` / `if P.ndim > 3` / `grid_shape[-1] % 2` test Python values, and
#   a second call with new field values compiles nothing.
# gap: exemption-vs-JAX
from functools import partial
import math

from jax import jit, ensure_compile_time_eval
import jax.numpy as jnp



# --- pmwd/util.py ---
def bincount(x, weights, *, length, dtype=None):
    """Quick fix before is released."""
    if dtype is None:
        dtype = jnp.dtype(weights)
    return jnp.zeros(length, dtype=dtype).at[jnp.clip(x, 0)].add(weights)


# --- pmwd/pm_util.py ---
def rfftnfreq(shape, spacing, dtype=jnp.float64, sparse=True):
    """(Angular) wavevectors for ``numpy.fft.rfftn``.

    Parameters
    ----------
    shape : tuple of int
        Shape of ``rfftn`` input.
    spacing : float or None, optional
        Grid spacing. None is equivalent to spacing of 2π with angular wavevector period
        of 1, or equivalently spacing of 1 with (non-angular) wavevector period of 1.
    dtype : DTypeLike
    sparse : bool, optional
        Whether to return sparse broadcastable or dense wavevector grids.

    Returns
    -------
    kvec : list of jax.Array
        Wavevectors.

    Notes
    -----

    The angular wavevectors differ from the numpy ``fftfreq`` and ``rfftfreq`` by a
    multiplicative factor of 2π.

    """
    period = 1
    if spacing is not None:
        period = 2 * jnp.pi / spacing

    kvec = []
    for axis, s in enumerate(shape[:-1]):
        k = jnp.fft.fftfreq(s) * period
        kvec.append(k.astype(dtype))

    k = jnp.fft.rfftfreq(shape[-1]) * period
    kvec.append(k.astype(dtype))

    kvec = jnp.meshgrid(*kvec, sparse=sparse, indexing='ij')

    return kvec


# --- pmwd/spec_util.py ---
@partial(jit, static_argnames=('bins', 'cut_zero', 'cut_nyq', 'dtype', 'int_dtype'))
def powspec(f, spacing, bins=1j/3, g=None, deconv=None, cut_zero=True, cut_nyq=True,
            dtype=jnp.float_, int_dtype=jnp.uint32):
    """Compute auto or cross power spectrum in 3D averaged in spherical bins.

    Parameters
    ----------
    f : ArrayLike
        The field, with the last 3 axes for FFT and the other reduced by sum of squares.
    spacing : float
        Field grid spacing.
    bins : float, complex, or tuple, optional
        (Angular) wavenumber bins. A real number sets the linear bin width in unit of
        the smallest fundamental in 3D (right edge inclusive starting from zero); an
        imaginary number sets the log bin width in octave (left edge inclusive starting
        from the smallest fundamental in 3D); and a tuple sets the bin edges directly
        (right edge inclusive and must starting from zero).
    g : ArrayLike, optional
        Another field of the same shape for cross correlation.
    deconv : int, optional
        Power of sinc factors to deconvolve in the power spectrum.
    cut_zero : bool, optional
        Whether to discard the bin containing the zero or DC mode.
    cut_nyq : bool, optional
        Whether to discard the bins beyond the Nyquist, only for linear or log ``bins``.
    dtype : DTypeLike, optional
        Float dtype for the wavenumber and power spectrum.
    int_dtype : DTypeLike, optional
        Integer dtype for the number of modes.

    Returns
    -------
    k : jax.Array
        Wavenumber.
    P : jax.Array
        Power spectrum.
    N : jax.Array
        Number of modes.
    bins : jax.Array
        Wavenumber bins.

    """
    f = jnp.asarray(f)

    if g is not None and f.shape != jnp.shape(g):
        raise ValueError(f'shape mismatch: {f.shape} != {jnp.shape(g)}')
    grid_shape = f.shape[-3:]

    with ensure_compile_time_eval():
        kfun = 1 / max(grid_shape)
        knyq = 0.5
        kmax = knyq * math.sqrt(3)
        if isinstance(bins, (int, float)):
            bins *= kfun
            bin_num = math.ceil(kmax / bins)
            bins *= jnp.arange(1 + bin_num)
            right = True
            bcut = jnp.digitize(knyq if cut_nyq else kmax, bins, right=right).item() + 1
        elif isinstance(bins, complex):
            kmaxable = all(s % 2 == 0 for s in grid_shape)  # extra bin just in case
            bin_num = math.ceil(math.log2(kmax / kfun) / bins.imag) + kmaxable
            bins = kfun * 2 ** (bins.imag * jnp.arange(1 + bin_num))
            right = False
            bcut = jnp.digitize(knyq if cut_nyq else kmax, bins, right=right).item() + 1
        else:
            bin_num = len(bins) - 1
            bins = jnp.asarray(bins)
            bins *= spacing / (2 * jnp.pi)  # convert to 2π spacing
            right = True
            bcut = bin_num + 1  # no trim otherwise hard to jit

    last_three = range(-3, 0)
    f = jnp.fft.rfftn(f, axes=last_three)
    if g is None:
        P = f.real**2 + f.imag**2
    else:
        g = jnp.asarray(g)
        g = jnp.fft.rfftn(g, axes=last_three)
        P = f * g.conj()

    if P.ndim > 3:
        P = P.sum(tuple(range(P.ndim-3)))

    kvec = rfftnfreq(grid_shape, None, dtype=P.real.dtype)
    k = jnp.sqrt(sum(k**2 for k in kvec))

    if deconv is not None:
        P = math.prod((jnp.sinc(k) ** -deconv for k in kvec), start=P)  # numpy sinc has pi

    N = jnp.full_like(P, 2, dtype=jnp.uint8)
    N = N.at[..., 0].set(1)
    if grid_shape[-1] % 2 == 0:
        N = N.at[..., -1].set(1)

    k = k.ravel()
    P = P.ravel()
    N = N.ravel()
    b = jnp.digitize(k, bins, right=right)
    k = bincount(b, weights=k * N, length=1+bin_num, dtype=dtype)  # k=0 goes to b=0
    P = bincount(b, weights=P * N, length=1+bin_num, dtype=dtype)
    N = bincount(b, weights=N, length=1+bin_num, dtype=int_dtype)

    k = k[cut_zero:bcut]
    P = P[cut_zero:bcut]
    N = N[cut_zero:bcut]
    bins = bins[:bcut]

    k /= N
    P /= N

    k *= 2 * jnp.pi / spacing
    bins *= 2 * jnp.pi / spacing
    P *= spacing**3 / math.prod(grid_shape)

    return k, P, N, bins


if __name__ == "__main__":
    import jax

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None)

    key = jax.random.PRNGKey(0)
    k1, k2, k3 = jax.random.split(key, 3)
    f = jax.random.normal(k1, (16, 16, 16))
    g = jax.random.normal(k2, (16, 16, 16))

    k, P, N, bins = powspec(f, 1.0)
    k, P, N, bins = powspec(f, 1.0, bins=1.0)
    k, P, N, bins = powspec(f, 1.0, bins=(0.0, 0.5, 1.0, 2.0, 3.5))
    k, P, N, bins = powspec(f, 1.0, g=g, deconv=2)
    k, P, N, bins = powspec(jax.random.normal(k3, (2, 16, 16, 16)), 2.0, cut_zero=False)
    assert bool(jnp.all(jnp.isfinite(P)))

    n = len(compiles)
    k2_, P2, N2, bins2 = powspec(g, 1.0)
    assert len(compiles) == n, "powspec recompiled for new field values"
    print("log bins:", k2_.shape, "compilations:", n)
